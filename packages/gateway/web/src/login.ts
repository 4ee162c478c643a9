/**
 * The token: from a `#token=` fragment (read once, then removed from the address bar; fragments never reach
 * the server) or the login form, kept in sessionStorage (this tab only, gone when it closes). Never from a
 * query string: those end up in logs and Referer headers.
 */
import { h } from "./dom.js";

const TOKEN_KEY = "tiller.token";
const URL_KEY = "tiller.url";

/** The gateway's WebSocket URL on the page's own origin (wss:// when the page came over https). */
export function defaultGatewayUrl(loc: Location = location): string {
  return `${loc.protocol === "https:" ? "wss" : "ws"}://${loc.host}`;
}

/** Takes a token from the fragment (and clears it), else the stored one. */
export function initialCredentials(): { token: string; url: string } {
  const hash = new URLSearchParams(location.hash.replace(/^#/, ""));
  const fromHash = hash.get("token");
  if (fromHash !== null) {
    sessionStorage.setItem(TOKEN_KEY, fromHash);
    hash.delete("token");
    const rest = hash.toString();
    history.replaceState(null, "", `${location.pathname}${location.search}${rest ? `#${rest}` : ""}`);
  }
  return {
    token: sessionStorage.getItem(TOKEN_KEY) ?? "",
    url: sessionStorage.getItem(URL_KEY) ?? defaultGatewayUrl(),
  };
}

export function saveCredentials(token: string, url: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
  sessionStorage.setItem(URL_KEY, url);
}

export function forgetToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

/** The login form; `submit` gets the token and URL the user entered. */
export function loginForm(url: string, message: string, submit: (token: string, url: string) => void): HTMLElement {
  const token = h("input", {
    type: "password",
    name: "token",
    autocomplete: "current-password",
    "aria-label": "Token",
    required: true,
  });
  const gw = h("input", { type: "text", name: "url", value: url, "aria-label": "Gateway URL", spellcheck: "false" });
  const form = h(
    "form",
    { class: "login", "aria-label": "Log in" },
    h("h1", {}, "Tiller"),
    h("p", { class: "login-message", role: message ? "alert" : undefined }, message || "Enter the gateway's token."),
    h("label", {}, "Token", token),
    h("label", {}, "Gateway URL", gw),
    h("button", { type: "submit", class: "primary" }, "Connect"),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    submit(token.value.trim(), gw.value.trim() || url);
  });
  queueMicrotask(() => token.focus());
  return form;
}
