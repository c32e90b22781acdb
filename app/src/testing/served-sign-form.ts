/** The served sign form as the build prerenders it (its fields and button, with the live region after it), in `parent`. */
export function servedSignForm(parent: HTMLElement, { name = '', message = '' } = {}): HTMLFormElement {
  const element = <K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, string>) => {
    const created = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes)) created.setAttribute(key, value);
    return created;
  };
  const form = element('form', { class: 'sign-form' });
  const nameField = element('input', { id: 'name', name: 'name' });
  const messageField = element('textarea', { id: 'message', name: 'message' });
  const button = element('button', { type: 'submit', class: 'primary-button' });
  button.textContent = 'Sign Logbook';
  form.append(nameField, messageField, button);
  const status = element('p', { role: 'status', 'data-testid': 'logbook-status' });
  parent.append(form, status);
  nameField.value = name;
  messageField.value = message;
  return form;
}
