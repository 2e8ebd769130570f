import type { Page } from "@playwright/test";

export interface Viewport {
  name: string;
  width: number;
  height: number;
  colorScheme: "light" | "dark";
}

/** The four ways a page is checked: a 1280-pixel desktop and a 390-pixel phone, each light and dark. */
export const VIEWPORTS: Viewport[] = [
  { name: "desktop-light", width: 1280, height: 800, colorScheme: "light" },
  { name: "desktop-dark", width: 1280, height: 800, colorScheme: "dark" },
  { name: "phone-light", width: 390, height: 844, colorScheme: "light" },
  { name: "phone-dark", width: 390, height: 844, colorScheme: "dark" },
];

/** Runs `check` on the page at each viewport and colour scheme in turn (inside one test). */
export async function forEachViewport(page: Page, check: (viewport: Viewport) => Promise<void>): Promise<void> {
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    await page.emulateMedia({ colorScheme: viewport.colorScheme });
    await check(viewport);
  }
}
