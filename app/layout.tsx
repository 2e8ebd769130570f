import type { Metadata, Viewport } from "next";
import { SiteFooter, SiteHeader } from "./(pages)/_components/site-chrome";

export const metadata: Metadata = {
  title: { template: "%s · svc-forge", default: "svc-forge" },
  icons: { icon: { url: "/favicon.svg", type: "image/svg+xml" } },
};

export const viewport: Viewport = { width: "device-width", initialScale: 1, colorScheme: "light dark" };

// Every page reads the caller's session, so nothing here is prerendered.
export const dynamic = "force-dynamic";

/** The one layout of every page, the 404, 403 and error pages included: one header, one <main>, one footer. */
export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <head>
        <link rel="stylesheet" href="/style.css" />
      </head>
      <body>
        <a className="skip" href="#content">
          Skip to content
        </a>
        <SiteHeader />
        <main id="content">{children}</main>
        <SiteFooter />
      </body>
    </html>
  );
}
