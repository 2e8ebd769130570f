import type { Page } from "@playwright/test";

export interface Viewport {
  name: "desktop" | "phone";
  width: number;
  height: number;
  scheme: "light" | "dark";
}

/** The widths and colour schemes every page is checked in: a 1280-pixel desktop and a 390-pixel phone, light and dark. */
export const VIEWPORTS: Viewport[] = [
  { name: "desktop", width: 1280, height: 800, scheme: "light" },
  { name: "desktop", width: 1280, height: 800, scheme: "dark" },
  { name: "phone", width: 390, height: 844, scheme: "light" },
  { name: "phone", width: 390, height: 844, scheme: "dark" },
];

/** Runs `check` with the page at each viewport and colour scheme in turn (the caller loads the page in it). */
export async function forEachViewport(page: Page, check: (viewport: Viewport) => Promise<void>): Promise<void> {
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    await page.emulateMedia({ colorScheme: viewport.scheme });
    await check(viewport);
  }
}
