import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { deferred } from '@/testing/deferred';
import { expectConsoleErrors } from '@/testing/console';
import { getClient } from '../api/client';
import { fakeEntryList, freeSpy } from '../api/fake-entry-list';
import { FIRST_SCREEN, prefetchLogEntries, type EntryList, type LogEntry } from '../api/list-entries';
import type { NewEntry } from '../api/sign-logbook';
import { Logbook } from './logbook';

vi.mock('../api/client', () => ({ getClient: vi.fn() }));

const listEntries = vi.fn<() => Promise<EntryList>>();
const listNewestEntries = vi.fn<(count: number) => Promise<EntryList>>();
const signLogbook = vi.fn<(entry: NewEntry) => Promise<void>>();

beforeEach(() => {
  listEntries.mockReset();
  // Unless a test says otherwise, the first screen never arrives: the whole list decides what is shown.
  listNewestEntries.mockReset().mockReturnValue(new Promise(() => undefined));
  signLogbook.mockReset();
  vi.mocked(getClient).mockReset();
  vi.mocked(getClient).mockReturnValue({ listEntries, listNewestEntries, signLogbook } as unknown as ReturnType<
    typeof getClient
  >);
});

const ann: LogEntry = { id: 1, created_at: '2024-05-01T10:00:00+00:00', name: 'Ann', message: 'First!' };
const bo: LogEntry = { id: 2, created_at: '2024-05-02T10:00:00+00:00', name: 'Bo', message: 'TFTC' };
const cy: LogEntry = { id: 3, created_at: '2024-05-03T10:00:00+00:00', name: 'Cy', message: 'Hi' };

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

  it('shows the newest entries first, then the whole list', async () => {
    const firstScreen = fakeEntryList([bo]);
    const all = deferred<EntryList>();
    listNewestEntries.mockResolvedValueOnce(firstScreen);
    listEntries.mockReturnValueOnce(all.promise);
    render(<Logbook />);

    await waitFor(() => expect(shownNames()).toEqual(['Bo']));
    expect(listNewestEntries).toHaveBeenCalledExactlyOnceWith(FIRST_SCREEN);
    await act(async () => {
      all.resolve(fakeEntryList([bo, ann]));
      await all.promise;
    });
    expect(shownNames()).toEqual(['Bo', 'Ann']);
    expect(freeSpy(firstScreen)).toHaveBeenCalledTimes(1);
  });

  it('after a sign, puts the newest entries on top of the shown list until the whole list arrives', async () => {
    const before = fakeEntryList([bo, ann]);
    listEntries.mockResolvedValueOnce(before);
    render(<Logbook />);
    await waitFor(() => expect(shownNames()).toEqual(['Bo', 'Ann']));

    const newest = fakeEntryList([cy, bo]);
    const all = deferred<EntryList>();
    listNewestEntries.mockResolvedValueOnce(newest);
    listEntries.mockReturnValueOnce(all.promise);
    signLogbook.mockResolvedValueOnce(undefined);
    const user = await fillIn('Cy', 'Hi');
    await user.click(signButton());
    await waitFor(() => expect(shownNames()).toEqual(['Cy', 'Bo', 'Ann']));
    expect(freeSpy(before)).not.toHaveBeenCalled();

    const after = fakeEntryList([cy, bo, ann]);
    await act(async () => {
      all.resolve(after);
      await all.promise;
    });
    expect(shownNames()).toEqual(['Cy', 'Bo', 'Ann']);
    expect(freeSpy(before)).toHaveBeenCalledTimes(1);
    expect(freeSpy(newest)).toHaveBeenCalledTimes(1);
    expect(freeSpy(after)).not.toHaveBeenCalled();
  });

  it('after a sign, does not guess when the newest entries do not reach the shown list', async () => {
    await renderLoaded([ann]);
    const dee: LogEntry = { id: 4, created_at: '2024-05-04T10:00:00+00:00', name: 'Dee', message: 'Yo' };
    const newest = fakeEntryList([dee, cy]);
    const all = deferred<EntryList>();
    listNewestEntries.mockResolvedValueOnce(newest);
    listEntries.mockReturnValueOnce(all.promise);
    signLogbook.mockResolvedValueOnce(undefined);
    const user = await fillIn('Dee', 'Yo');
    await user.click(signButton());
    await waitFor(() => expect(freeSpy(newest)).toHaveBeenCalledTimes(1));
    expect(shownNames()).toEqual(['Ann']);

    await act(async () => {
      all.resolve(fakeEntryList([dee, cy, bo, ann]));
      await all.promise;
    });
    expect(shownNames()).toEqual(['Dee', 'Cy', 'Bo', 'Ann']);
  });

  it('takes the newest entries back off when the whole list then fails, and logs that failure', async () => {
    await renderLoaded([bo, ann]);
    const error = logbookError('server error');
    const all = deferred<EntryList>();
    listNewestEntries.mockResolvedValueOnce(fakeEntryList([cy, bo]));
    listEntries.mockReturnValueOnce(all.promise);
    signLogbook.mockResolvedValueOnce(undefined);
    const user = await fillIn('Cy', 'Hi');
    await user.click(signButton());
    await waitFor(() => expect(shownNames()).toEqual(['Cy', 'Bo', 'Ann']));

    await act(async () => {
      all.reject(error);
      await all.promise.catch(() => undefined);
    });
    await waitFor(() => expectConsoleErrors([['Error fetching logs:', error]]));
    expect(shownNames()).toEqual(['Bo', 'Ann']);
  });

  it('drops a first screen that arrives after the whole list', async () => {
    const firstScreen = deferred<EntryList>();
    const late = fakeEntryList([bo]);
    listNewestEntries.mockReturnValueOnce(firstScreen.promise);
    await renderLoaded([bo, ann]);
    await act(async () => {
      firstScreen.resolve(late);
      await firstScreen.promise;
    });
    expect(shownNames()).toEqual(['Bo', 'Ann']);
    expect(freeSpy(late)).toHaveBeenCalledTimes(1);
  });

  it('when the whole list fails after its first screen, shows no entries and logs only that failure', async () => {
    const error = logbookError('schema mismatch at entry 5,000');
    const all = deferred<EntryList>();
    listNewestEntries.mockResolvedValueOnce(fakeEntryList([bo]));
    listEntries.mockReturnValueOnce(all.promise);
    render(<Logbook />);
    await waitFor(() => expect(shownNames()).toEqual(['Bo']));

    await act(async () => {
      all.reject(error);
      await all.promise.catch(() => undefined);
    });
    await waitFor(() => expectConsoleErrors([['Error fetching logs:', error]]));
    expect(screen.queryAllByTestId('log-entry')).toHaveLength(0);
  });

  it('does not report a failed first screen when the whole list loads', async () => {
    listNewestEntries.mockRejectedValueOnce(logbookError('first screen failed'));
    await renderLoaded([bo, ann]);
    expect(shownNames()).toEqual(['Bo', 'Ann']);
    // No console.error: the setup fails the test on any unclaimed one.
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

  it('keeps both fields and logs "Error inserting log:" with the error when the sign fails, showing nothing', async () => {
    await renderLoaded([ann]);
    const error = Object.assign(new Error('new row violates row-level security policy'), {
      name: 'LogbookError',
      code: '42501',
      status: 401,
      retryable: false,
    });
    signLogbook.mockRejectedValueOnce(error);
    const user = await fillIn('Bo', 'TFTC\nagain');
    const page = screen.getByRole('main');
    const shownBefore = page.textContent;
    const elementsBefore = page.querySelectorAll('*').length;

    await user.click(signButton());

    await waitFor(() => expectConsoleErrors([['Error inserting log:', error]]));
    expect(nameField()).toHaveValue('Bo');
    expect(messageField()).toHaveValue('TFTC\nagain');
    expect(signButton()).toBeEnabled();
    expect(listEntries).toHaveBeenCalledTimes(1);
    expect(page.textContent).toBe(shownBefore);
    expect(page.querySelectorAll('*')).toHaveLength(elementsBefore);
  });

  it('disables the button while a sign is in flight, so a double click makes one entry', async () => {
    await renderLoaded();
    const pending = deferred<undefined>();
    signLogbook.mockReturnValueOnce(pending.promise);
    listEntries.mockResolvedValueOnce(fakeEntryList([bo]));

    const user = await fillIn('Bo', 'TFTC');
    await user.dblClick(signButton());
    expect(signButton()).toBeDisabled();
    await user.click(signButton());
    expect(signLogbook).toHaveBeenCalledTimes(1);

    await act(async () => {
      pending.resolve(undefined);
      await pending.promise;
    });
    await waitFor(() => expect(shownNames()).toEqual(['Bo']));
    expect(signButton()).toBeEnabled();
    expect(signLogbook).toHaveBeenCalledTimes(1);
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
