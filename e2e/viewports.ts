import type { Page } from "@playwright/test";

export interface Viewport {
  name: string;
  width: number;
  height: number;
  colorScheme: "light" | "dark";
}

/** A desktop and a phone, each in light and dark: the four ways a page is checked (issue 44). */
export const VIEWPORTS: Viewport[] = [
  { name: "desktop-light", width: 1280, height: 800, colorScheme: "light" },
  { name: "desktop-dark", width: 1280, height: 800, colorScheme: "dark" },
  { name: "phone-light", width: 390, height: 844, colorScheme: "light" },
  { name: "phone-dark", width: 390, height: 844, colorScheme: "dark" },
];

/** Runs `check` on the page at each viewport and colour scheme in turn (the page is not reloaded: `check` navigates). */
export async function forEachViewport(page: Page, check: (viewport: Viewport) => Promise<void>): Promise<void> {
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    await page.emulateMedia({ colorScheme: viewport.colorScheme });
    await check(viewport);
  }
}
