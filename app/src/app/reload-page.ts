/** Reloads the page: the one retry that works when the browser keeps a module's failure (see App.tsx). */
export function reloadPage(): void {
  window.location.reload();
}
