import { DomainError } from "@/server/errors";
export const sdk = DomainError;
