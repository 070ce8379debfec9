/**
 * The tab's access token. With tokens configured (STRAND_TOKENS) the gateway answers 401 until the
 * page sends one; the person types it once and it is kept in sessionStorage: for this tab only, gone
 * when the tab closes, never in a cookie (so no other site's request carries it) nor in the URL.
 */
const KEY = 'strand.token';
/** Kept here too, for a browser that refuses storage (then the token lasts until the page reloads). */
let memory: string | undefined;

export const tokenStore = {
  get(): string | undefined {
    try {
      return sessionStorage.getItem(KEY) ?? memory;
    } catch {
      return memory;
    }
  },
  set(token: string | undefined): void {
    memory = token;
    try {
      if (token) sessionStorage.setItem(KEY, token);
      else sessionStorage.removeItem(KEY);
    } catch {
      // Storage refused: `memory` holds it.
    }
  },
};
