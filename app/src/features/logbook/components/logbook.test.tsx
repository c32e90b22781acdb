import { StrictMode } from 'react';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { deferred } from '@/testing/deferred';
import { expectConsoleErrors } from '@/testing/console';
import { fakeEntryList, freeSpy } from '@/testing/fake-entry-list';
import { fakeReads, readAt, type FakeReads } from '@/testing/fake-paged-read';
import { getClient } from '../api/client';
import { prefetchLogEntries } from '../reads/prefetch-entries';
import { Logbook } from './logbook';
import { loadClientCode } from '../api/client-code';
import type { EntryList, ListOptions, LogEntry, NewEntry } from '../types';

vi.mock('../api/client', () => ({ getClient: vi.fn() }));

const listEntries = vi.fn<(options?: ListOptions) => Promise<EntryList>>();
const signLogbook = vi.fn<(entry: NewEntry) => Promise<void>>();

// The wasm client's code has loaded, as on a page whose form is usable (logbook.client-loading.test.tsx covers the time
// before).
beforeAll(async () => {
  await loadClientCode();
});

beforeEach(() => {
  listEntries.mockReset();
  signLogbook.mockReset();
  vi.mocked(getClient).mockReset();
  // No other read: the first page is the first screen.
  vi.mocked(getClient).mockReturnValue({ listEntries, signLogbook } as unknown as ReturnType<typeof getClient>);
});

const ann: LogEntry = { id: 1, created_at: '2024-05-01T10:00:00+00:00', name: 'Ann', message: 'First!' };
const bo: LogEntry = { id: 2, created_at: '2024-05-02T10:00:00+00:00', name: 'Bo', message: 'TFTC' };
const cy: LogEntry = { id: 3, created_at: '2024-05-03T10:00:00+00:00', name: 'Cy', message: 'Hi' };
const dee: LogEntry = { id: 4, created_at: '2024-05-04T10:00:00+00:00', name: 'Dee', message: 'Yo' };

function logbookError(message: string) {
  return Object.assign(new Error(message), { name: 'LogbookError', code: 'network_error', status: 0, retryable: true });
}

function nameField() {
  return screen.getByLabelText<HTMLInputElement>('Name:');
}
function messageField() {
  return screen.getByLabelText<HTMLTextAreaElement>('Message:');
}
function signButton() {
  return screen.getByRole('button', { name: 'Sign Logbook' });
}
function shownNames() {
  return screen.queryAllByTestId('log-entry').map((card) => card.querySelector('[dir="auto"]')?.textContent);
}

/** Renders the logbook and waits for its first load to finish. */
async function renderLoaded(entries: LogEntry[] = []) {
  listEntries.mockResolvedValueOnce(fakeEntryList(entries));
  const view = render(<Logbook />);
  await waitFor(() => expect(screen.queryAllByTestId('log-entry')).toHaveLength(entries.length));
  await act(() => Promise.resolve());
  return view;
}

async function fillIn(name: string, message: string) {
  const user = userEvent.setup();
  await user.click(nameField());
  await user.paste(name);
  await user.click(messageField());
  await user.paste(message);
  return user;
}

describe('Logbook markup', () => {
  it('has the title, the form card with labelled required fields, the button and the list heading', async () => {
    await renderLoaded();

    const title = screen.getByRole('heading', { level: 1 });
    expect(title).toHaveTextContent(/^Geocache Signing Page$/);

    const name = nameField();
    expect(name.tagName).toBe('INPUT');
    expect(name).toHaveAttribute('id', 'name');
    expect(name).toHaveAttribute('type', 'text');
    expect(name).toBeRequired();
    expect(screen.getByText('Name:')).toHaveAttribute('for', 'name');

    const message = messageField();
    expect(message.tagName).toBe('TEXTAREA');
    expect(message).toHaveAttribute('id', 'message');
    expect(message).toHaveAttribute('rows', '4');
    expect(message).toBeRequired();
    expect(screen.getByText('Message:')).toHaveAttribute('for', 'message');

    const button = signButton();
    expect(button).toHaveAttribute('type', 'submit');
    expect(button).toHaveTextContent(/^Sign Logbook$/);
    expect(button).toBeEnabled();

    const form = button.closest('form');
    expect(form).toContainElement(name);
    expect(form).toContainElement(message);
    expect(form?.closest('.card')).not.toBeNull();

    const listHeading = screen.getByRole('heading', { level: 2 });
    expect(listHeading).toHaveTextContent(/^Logbook Entries$/);

    // Title, then the form, then the list heading, then the list.
    const order = [title, form, listHeading, screen.getByRole('list')];
    order.slice(1).forEach((element, index) => {
      const before = order[index];
      if (!before || !element) throw new Error('missing element');
      expect(before.compareDocumentPosition(element) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    });
  });
});

describe('loading the list', () => {
  it('loads the entries once on mount and shows them in the order the client returned', async () => {
    await renderLoaded([bo, ann]);
    expect(listEntries).toHaveBeenCalledTimes(1);
    expect(shownNames()).toEqual(['Bo', 'Ann']);
  });

  it('logs a failed load as "Error fetching logs:" with the error, and the list stays empty', async () => {
    const error = logbookError('network failure');
    listEntries.mockRejectedValueOnce(error);
    render(<Logbook />);

    await waitFor(() => expectConsoleErrors([['Error fetching logs:', error]]));
    expect(screen.queryAllByTestId('log-entry')).toHaveLength(0);
    expect(screen.getByRole('list')).toBeEmptyDOMElement();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('does not let a slower, older response overwrite a newer one', async () => {
    const firstLoad = deferred<EntryList>();
    listEntries.mockReturnValueOnce(firstLoad.promise).mockResolvedValueOnce(fakeEntryList([bo, ann]));
    signLogbook.mockResolvedValueOnce(undefined);
    render(<Logbook />);

    // A sign reloads the list while the first load is still in flight; the reload answers first.
    const user = await fillIn('Bo', 'TFTC');
    await user.click(signButton());
    await waitFor(() => expect(shownNames()).toEqual(['Bo', 'Ann']));

    await act(async () => {
      firstLoad.resolve(fakeEntryList([ann]));
      await firstLoad.promise;
    });
    expect(shownNames()).toEqual(['Bo', 'Ann']);
  });

  it('gives each list\'s wasm memory back once it is replaced or arrives too late, never the shown one', async () => {
    const first = fakeEntryList([ann]);
    const late = fakeEntryList([ann]);
    const second = fakeEntryList([bo, ann]);
    const lateLoad = deferred<EntryList>();
    listEntries.mockResolvedValueOnce(first).mockReturnValueOnce(lateLoad.promise).mockResolvedValueOnce(second);
    signLogbook.mockResolvedValue(undefined);
    render(<Logbook />);
    await waitFor(() => expect(shownNames()).toEqual(['Ann']));

    // Two signs: the first reload is still in flight when the second one answers.
    const user = await fillIn('Bo', 'TFTC');
    await user.click(signButton());
    await fillIn('Cy', 'Hi');
    await user.click(signButton());
    await waitFor(() => expect(shownNames()).toEqual(['Bo', 'Ann']));
    expect(freeSpy(first)).toHaveBeenCalledTimes(1);

    await act(async () => {
      lateLoad.resolve(late);
      await lateLoad.promise;
    });
    expect(freeSpy(late)).toHaveBeenCalledTimes(1);
    expect(shownNames()).toEqual(['Bo', 'Ann']);
    expect(freeSpy(second)).not.toHaveBeenCalled();
  });

  it('takes over a load started before it rendered, and loads afresh after that', async () => {
    const early = deferred<EntryList>();
    listEntries.mockReturnValueOnce(early.promise).mockResolvedValueOnce(fakeEntryList([bo, ann]));
    signLogbook.mockResolvedValueOnce(undefined);
    prefetchLogEntries();
    expect(listEntries).toHaveBeenCalledTimes(1);

    render(<Logbook />);
    await act(async () => {
      early.resolve(fakeEntryList([ann]));
      await early.promise;
    });
    await waitFor(() => expect(shownNames()).toEqual(['Ann']));
    expect(listEntries).toHaveBeenCalledTimes(1);

    const user = await fillIn('Bo', 'TFTC');
    await user.click(signButton());
    await waitFor(() => expect(shownNames()).toEqual(['Bo', 'Ann']));
    expect(listEntries).toHaveBeenCalledTimes(2);
  });

  it('reports a failed early load once the logbook renders, as "Error fetching logs:"', async () => {
    const error = logbookError('refused');
    listEntries.mockRejectedValueOnce(error);
    prefetchLogEntries();
    // The rejection waits for the logbook without counting as unhandled.
    await new Promise((resolve) => setTimeout(resolve, 10));

    render(<Logbook />);
    await waitFor(() => expectConsoleErrors([['Error fetching logs:', error]]));
    expect(screen.queryAllByTestId('log-entry')).toHaveLength(0);
    expect(listEntries).toHaveBeenCalledTimes(1);
  });

  it('keeps the shown list when a later reload fails', async () => {
    await renderLoaded([ann]);
    const error = logbookError('server error');
    listEntries.mockRejectedValueOnce(error);
    signLogbook.mockResolvedValueOnce(undefined);

    const user = await fillIn('Bo', 'TFTC');
    await user.click(signButton());

    await waitFor(() => expectConsoleErrors([['Error fetching logs:', error]]));
    expect(shownNames()).toEqual(['Ann']);
  });

  it('ignores a load that finishes after the logbook is gone', async () => {
    const load = deferred<EntryList>();
    listEntries.mockReturnValueOnce(load.promise);
    const { unmount } = render(<Logbook />);
    unmount();
    await act(async () => {
      load.resolve(fakeEntryList([ann]));
      await load.promise;
    });
    expect(listEntries).toHaveBeenCalledTimes(1);
  });
});

describe('reading the list in pages', () => {
  let reads: FakeReads;
  beforeEach(() => {
    reads = fakeReads();
    listEntries.mockImplementation(reads.listEntries);
  });

  /** Delivers one page of `read` (every entry read so far) inside act, and returns its handle. */
  function page(read: number, entriesSoFar: LogEntry[]) {
    let handle: EntryList | undefined;
    act(() => {
      handle = readAt(reads, read).page(entriesSoFar);
    });
    if (!handle) throw new Error('no page delivered');
    return handle;
  }
  async function finish(read: number, list?: EntryList) {
    await act(() => readAt(reads, read).finish(list));
  }
  async function fail(read: number, error: unknown) {
    await act(() => readAt(reads, read).fail(error));
  }

  /** Renders the logbook with a first read that delivers these entries as one page and finishes. */
  async function renderRead(entries: LogEntry[]) {
    render(<Logbook />);
    page(0, entries);
    await finish(0);
    expect(shownNames()).toEqual(entries.map((entry) => entry.name));
  }

  /** Signs as Visitor/Hi and waits until the reload after it has started (read `read`). */
  async function signAndStartReload(read: number) {
    signLogbook.mockResolvedValueOnce(undefined);
    const user = await fillIn('Visitor', 'Hi');
    await user.click(signButton());
    await waitFor(() => expect(reads.started).toHaveLength(read + 1));
  }

  it('shows the first page as soon as it arrives and grows the list as older pages arrive, with one read', async () => {
    render(<Logbook />);
    expect(listEntries).toHaveBeenCalledTimes(1);
    expect(shownNames()).toEqual([]);

    page(0, [dee, cy]);
    expect(shownNames()).toEqual(['Dee', 'Cy']);
    page(0, [dee, cy, bo]);
    expect(shownNames()).toEqual(['Dee', 'Cy', 'Bo']);
    page(0, [dee, cy, bo, ann]);
    expect(shownNames()).toEqual(['Dee', 'Cy', 'Bo', 'Ann']);
    await finish(0);
    expect(shownNames()).toEqual(['Dee', 'Cy', 'Bo', 'Ann']);
    expect(listEntries).toHaveBeenCalledTimes(1);
  });

  it('keeps the form usable while pages are still arriving: a sign goes out and the list is read again', async () => {
    render(<Logbook />);
    page(0, [cy, bo]);

    expect(signButton()).toBeEnabled();
    await signAndStartReload(1);
    expect(signLogbook).toHaveBeenCalledExactlyOnceWith({ name: 'Visitor', message: 'Hi' });
    expect(nameField()).toHaveValue('');
    // The list shown stays while the first read is superseded.
    expect(shownNames()).toEqual(['Cy', 'Bo']);
  });

  it('keeps what is shown when a later page fails, and logs "Error fetching logs:" with the error', async () => {
    const error = Object.assign(logbookError('page 3: network failure'), { page: 3 });
    render(<Logbook />);
    page(0, [dee, cy]);
    page(0, [dee, cy, bo]);

    await fail(0, error);
    expectConsoleErrors([['Error fetching logs:', error]]);
    expect(shownNames()).toEqual(['Dee', 'Cy', 'Bo']);
    expect(signButton()).toBeEnabled();
  });

  it('after a sign, shows the fresh pages followed by the older part of the list shown before, then the fresh list alone', async () => {
    await renderRead([cy, bo, ann]);
    await signAndStartReload(1);
    expect(shownNames()).toEqual(['Cy', 'Bo', 'Ann']);

    // The new entry and one more on the first fresh page: the older part of the previous list follows.
    page(1, [dee, cy]);
    expect(shownNames()).toEqual(['Dee', 'Cy', 'Bo', 'Ann']);
    // The owner removed Bo meanwhile: still shown from the previous list until the reload ends...
    page(1, [dee, cy, ann]);
    expect(shownNames()).toEqual(['Dee', 'Cy', 'Ann']);
    await finish(1);
    // ...and the final list replaces it.
    expect(shownNames()).toEqual(['Dee', 'Cy', 'Ann']);
  });

  it('after a sign, drops an entry the fresh pages passed over, keeps the older ones until the reload ends', async () => {
    await renderRead([dee, cy, bo, ann]);
    await signAndStartReload(1);

    page(1, [dee]);
    expect(shownNames()).toEqual(['Dee', 'Cy', 'Bo', 'Ann']);
    // Cy was removed by the owner: Bo comes right after Dee in the fresh read; Cy is not older than Bo, so
    // it goes, and nothing older than the fresh pages is lost.
    page(1, [dee, bo]);
    expect(shownNames()).toEqual(['Dee', 'Bo', 'Ann']);
    await finish(1, fakeEntryList([dee, bo]));
    // Ann was removed too: only the final list says so.
    expect(shownNames()).toEqual(['Dee', 'Bo']);
  });

  it('keeps the fresh pages over the previous list when a reload\'s later page fails', async () => {
    await renderRead([bo, ann]);
    await signAndStartReload(1);
    page(1, [cy]);
    expect(shownNames()).toEqual(['Cy', 'Bo', 'Ann']);

    const error = Object.assign(logbookError('page 2: server error'), { page: 2 });
    await fail(1, error);
    expectConsoleErrors([['Error fetching logs:', error]]);
    expect(shownNames()).toEqual(['Cy', 'Bo', 'Ann']);
  });

  it('does not let the pages of a slower, older read overwrite a newer one', async () => {
    render(<Logbook />);
    page(0, [bo]);
    await signAndStartReload(1);
    page(1, [dee, cy, bo, ann]);
    await finish(1);
    expect(shownNames()).toEqual(['Dee', 'Cy', 'Bo', 'Ann']);

    // The first read goes on paging and finishes after the reload.
    const late = page(0, [bo, ann]);
    await finish(0);
    expect(shownNames()).toEqual(['Dee', 'Cy', 'Bo', 'Ann']);
    expect(freeSpy(late)).toHaveBeenCalledTimes(1);
  });

  it('gives each handle\'s wasm memory back once nothing shown reads it, never the shown one', async () => {
    render(<Logbook />);
    const first = page(0, [bo]);
    const second = page(0, [bo, ann]);
    expect(freeSpy(first)).toHaveBeenCalledTimes(1);
    expect(freeSpy(second)).not.toHaveBeenCalled();
    // The client resolves to the last page's own handle: it stays.
    await finish(0);
    expect(freeSpy(second)).not.toHaveBeenCalled();

    await signAndStartReload(1);
    const fresh = page(1, [cy]);
    // The previous list is still read from (its older part is shown under the fresh page).
    expect(freeSpy(second)).not.toHaveBeenCalled();
    const fresher = page(1, [cy, bo]);
    expect(freeSpy(fresh)).toHaveBeenCalledTimes(1);
    const final = fakeEntryList([cy, bo, ann]);
    await finish(1, final);
    expect(shownNames()).toEqual(['Cy', 'Bo', 'Ann']);
    expect(freeSpy(second)).toHaveBeenCalledTimes(1);
    expect(freeSpy(fresher)).toHaveBeenCalledTimes(1);
    expect(freeSpy(final)).not.toHaveBeenCalled();
  });

  it('frees a page that arrives after the logbook is gone', async () => {
    const { unmount } = render(<Logbook />);
    unmount();
    const late = page(0, [ann]);
    expect(freeSpy(late)).toHaveBeenCalledTimes(1);
    await finish(0);
  });

  it('works under StrictMode: the read that survives its repeated effects is shown, the other is freed', async () => {
    render(
      <StrictMode>
        <Logbook />
      </StrictMode>,
    );
    // Mounted, unmounted and mounted again: two reads, and only the second one counts.
    expect(reads.started).toHaveLength(2);
    const current = 1;
    page(current, [bo]);
    page(current, [bo, ann]);
    expect(shownNames()).toEqual(['Bo', 'Ann']);
    const dropped = page(0, [cy]);
    expect(freeSpy(dropped)).toHaveBeenCalledTimes(1);
    await finish(0);
    await finish(current);
    expect(shownNames()).toEqual(['Bo', 'Ann']);

    await signAndStartReload(current + 1);
    page(current + 1, [cy]);
    expect(shownNames()).toEqual(['Cy', 'Bo', 'Ann']);
    await finish(current + 1);
    expect(shownNames()).toEqual(['Cy']);
  });

  it('takes over a read started before it rendered, with the pages it already has', async () => {
    prefetchLogEntries();
    expect(listEntries).toHaveBeenCalledTimes(1);
    const early = readAt(reads, 0).page([cy]);
    const newest = readAt(reads, 0).page([cy, bo]);
    // Never shown: superseded before anything rendered it.
    expect(freeSpy(early)).toHaveBeenCalledTimes(1);

    render(<Logbook />);
    expect(shownNames()).toEqual(['Cy', 'Bo']);
    expect(freeSpy(newest)).not.toHaveBeenCalled();
    page(0, [cy, bo, ann]);
    expect(shownNames()).toEqual(['Cy', 'Bo', 'Ann']);
    await finish(0);
    expect(listEntries).toHaveBeenCalledTimes(1);
  });
});

describe('signing', () => {
  it('sends name and message exactly as typed, then reloads the list and clears both fields', async () => {
    await renderLoaded([ann]);
    listEntries.mockResolvedValueOnce(fakeEntryList([bo, ann]));
    signLogbook.mockResolvedValueOnce(undefined);

    const name = '  Bo <b>  ';
    const message = '  TFTC\n\n  see you\t';
    const user = await fillIn(name, message);
    expect(nameField()).toHaveValue(name);
    await user.click(signButton());

    await waitFor(() => expect(shownNames()).toEqual(['Bo', 'Ann']));
    expect(signLogbook).toHaveBeenCalledExactlyOnceWith({ name, message });
    expect(listEntries).toHaveBeenCalledTimes(2);
    expect(nameField()).toHaveValue('');
    expect(messageField()).toHaveValue('');
  });

  it('keeps both fields, logs "Error inserting log:" with the error and says in words why the sign failed', async () => {
    await renderLoaded([ann]);
    const error = Object.assign(new Error('new row violates row-level security policy'), {
      name: 'LogbookError',
      code: '42501',
      status: 401,
      retryable: false,
    });
    signLogbook.mockRejectedValueOnce(error);
    const user = await fillIn('Bo', 'TFTC\nagain');
    await user.click(signButton());

    await waitFor(() => expectConsoleErrors([['Error inserting log:', error]]));
    expect(nameField()).toHaveValue('Bo');
    expect(messageField()).toHaveValue('TFTC\nagain');
    expect(signButton()).toBeEnabled();
    expect(listEntries).toHaveBeenCalledTimes(1);
    expect(shownNames()).toEqual(['Ann']);
    // A refusal is final: nothing is kept on the device, and the live region says why.
    expect(screen.queryByTestId('pending-entry')).toBeNull();
    expect(screen.getByRole('status')).toHaveTextContent('Not signed: the logbook does not accept signs from this page.');
  });

  it('disables the button while a sign is in flight, so a double click makes one entry', async () => {
    await renderLoaded();
    const pending = deferred<undefined>();
    signLogbook.mockReturnValueOnce(pending.promise);
    listEntries.mockResolvedValueOnce(fakeEntryList([bo]));

    const user = await fillIn('Bo', 'TFTC');
    await user.dblClick(signButton());
    const inFlight = screen.getByRole('button', { name: 'Signing…' });
    expect(inFlight).toBeDisabled();
    expect(screen.getByRole('status')).toHaveTextContent('Signing…');
    await user.click(inFlight);
    expect(signLogbook).toHaveBeenCalledTimes(1);

    await act(async () => {
      pending.resolve(undefined);
      await pending.promise;
    });
    await waitFor(() => expect(shownNames()).toEqual(['Bo']));
    expect(signButton()).toBeEnabled();
    expect(signLogbook).toHaveBeenCalledTimes(1);
    expect(screen.getByRole('status')).toHaveTextContent('Signed.');
  });

  it('refuses a second submit in the same tick (before the disabled button is rendered)', async () => {
    await renderLoaded();
    const pending = deferred<undefined>();
    signLogbook.mockReturnValueOnce(pending.promise);
    listEntries.mockResolvedValueOnce(fakeEntryList([bo]));
    await fillIn('Bo', 'TFTC');

    const form = signButton().closest('form');
    if (!form) throw new Error('no form');
    act(() => {
      fireEvent.submit(form);
      fireEvent.submit(form);
    });
    // Any later submit (Enter in a field, say) is refused too while the first is in flight.
    fireEvent.submit(form);
    expect(signLogbook).toHaveBeenCalledTimes(1);

    await act(async () => {
      pending.resolve(undefined);
      await pending.promise;
    });
    await waitFor(() => expect(shownNames()).toEqual(['Bo']));
  });

  it('enables the button again after a failed sign, so the visitor can retry', async () => {
    await renderLoaded();
    const error = logbookError('offline');
    signLogbook.mockRejectedValueOnce(error).mockResolvedValueOnce(undefined);
    listEntries.mockResolvedValueOnce(fakeEntryList([bo]));

    const user = await fillIn('Bo', 'TFTC');
    await user.click(signButton());
    await waitFor(() => expectConsoleErrors([['Error inserting log:', error]]));
    await user.click(signButton());

    await waitFor(() => expect(shownNames()).toEqual(['Bo']));
    expect(signLogbook).toHaveBeenCalledTimes(2);
    expect(signLogbook).toHaveBeenLastCalledWith({ name: 'Bo', message: 'TFTC' });
  });

  it('lets the browser block an empty submit: both fields are required', async () => {
    await renderLoaded();
    const user = userEvent.setup();
    await user.click(signButton());
    await user.click(nameField());
    await user.paste('Bo');
    await user.click(signButton());
    expect(signLogbook).not.toHaveBeenCalled();
    expect(messageField()).toBeInvalid();
  });

  it('does nothing more when the sign finishes after the logbook is gone', async () => {
    const { unmount } = await renderLoaded();
    const pending = deferred<undefined>();
    signLogbook.mockReturnValueOnce(pending.promise);
    const user = await fillIn('Bo', 'TFTC');
    await user.click(signButton());
    unmount();

    await act(async () => {
      pending.resolve(undefined);
      await pending.promise;
    });
    expect(listEntries).toHaveBeenCalledTimes(1);
  });
});
