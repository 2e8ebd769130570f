import { Page } from "@/app/page";
export const used = Page;
