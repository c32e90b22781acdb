const CHARSET_META = /<meta\s+charset=[^>]*>/i;

/**
 * `html` with `element` written right after its `<meta charset>`, before every script, style and icon the page
 * names: where a policy or a script must come before all of them. `what` names the element in the error thrown when
 * the page has no `<meta charset>`.
 */
export function afterCharsetMeta(html: string, element: string, what: string): string {
  if (!CHARSET_META.test(html)) throw new Error(`index.html has no <meta charset>; ${what} goes right after it.`);
  return html.replace(CHARSET_META, (charset) => `${charset}\n    ${element}`);
}
