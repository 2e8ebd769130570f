/**
 * The cookie that carries a one-time secret (a new token's plaintext, a new webhook's signing
 * secret) from the POST that made it to the page the browser is redirected to. proxy.ts expires it
 * in the answer to the first page request that carries it and hands its value to that page in
 * FLASH_HEADER (Next.js applies the expiry to the page's view of the cookies too), so the page
 * shows it once.
 */
export const FLASH_COOKIE = "svc_flash";
export const FLASH_HEADER = "x-svc-flash";
