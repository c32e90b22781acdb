import { render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { expectConsoleErrors } from '@/testing/console';
import { fakeEntryList } from '@/testing/fake-entry-list';
import { servedSignForm } from '@/testing/served-sign-form';
import { getClient } from '../api/client';
import { loadClientCode } from '../api/client-code';
import { EARLY_SIGNS_PROPERTY, leaveEarlySigns } from '../sign/early-sign-handle';
import { Logbook } from './logbook';
import type { EntryList, ListOptions, NewEntry, SignOptions } from '../types';

vi.mock('../api/client', () => ({ getClient: vi.fn() }));

const listEntries = vi.fn<(options?: ListOptions) => Promise<EntryList>>();
const signLogbook = vi.fn<(entry: NewEntry, options?: SignOptions) => Promise<void>>();
const KEY = '0f8fad5b-d9cb-469f-a165-70867728950e';

beforeAll(async () => {
  await loadClientCode();
});
beforeEach(() => {
  listEntries.mockReset().mockResolvedValue(fakeEntryList([]));
  signLogbook.mockReset();
  vi.mocked(getClient).mockReturnValue({ listEntries, signLogbook } as unknown as ReturnType<typeof getClient>);
});
afterEach(() => {
  delete (window as unknown as Record<string, unknown>)[EARLY_SIGNS_PROPERTY];
});

/** The served page's root, as the build prerenders it, with what the visitor typed before React took it over. */
function servedRoot(name: string, message: string): HTMLElement {
  const root = document.createElement('div');
  document.body.append(root);
  servedSignForm(root, { name, message });
  return root;
}

describe('the logbook taking over the served form', () => {
  it('keeps its text, its focus and its caret', () => {
    const root = servedRoot('Ann', 'Found it at dusk');
    const served = root.querySelector('textarea')!;
    served.focus();
    served.setSelectionRange(5, 5);
    render(<Logbook />, { container: root });
    const message = screen.getByLabelText<HTMLTextAreaElement>('Message:');
    expect(message).not.toBe(served);
    expect(screen.getByLabelText<HTMLInputElement>('Name:').value).toBe('Ann');
    expect(message.value).toBe('Found it at dusk');
    expect(document.activeElement).toBe(message);
    expect([message.selectionStart, message.selectionEnd]).toEqual([5, 5]);
  });

  it('goes on with a sign pressed there, under its key, and clears the fields once it is stored', async () => {
    const root = servedRoot('Ann', 'Early');
    leaveEarlySigns(window, { pending: { name: 'Ann', message: 'Early', idempotencyKey: KEY }, onPress: undefined });
    let store!: () => void;
    signLogbook.mockReturnValue(new Promise((resolve) => (store = resolve)));
    render(<Logbook />, { container: root });
    expect(screen.getByRole('button', { name: 'Signing…' })).toBeDisabled();
    expect(screen.getByRole('status')).toHaveTextContent('Signing…');
    await waitFor(() => expect(signLogbook).toHaveBeenCalled());
    store();
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('Signed.'));
    expect(signLogbook.mock.calls).toEqual([[{ name: 'Ann', message: 'Early' }, { idempotencyKey: KEY }]]);
    expect(screen.getByLabelText<HTMLInputElement>('Name:').value).toBe('');
    expectConsoleErrors([]);
  });
});
