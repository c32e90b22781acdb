// Test support: the client's paged `listEntries`, driven page by page by the test.
import { deferred } from './deferred';
import type { EntryList, ListOptions, LogEntry } from 'geocache-client';
import { fakeEntryList } from './fake-entry-list';

/** One call of `listEntries`, still open until the test finishes or fails it. */
export interface FakeRead {
  /** Hands the caller every entry read so far, as the client does after each page; returns that handle. */
  page(entriesSoFar: readonly LogEntry[]): EntryList;
  /** Resolves the read with `list`, by default the handle of the last page (the client may do either). */
  finish(list?: EntryList): Promise<void>;
  /** Rejects the read, as a page that finally failed does. */
  fail(error: unknown): Promise<void>;
}

export interface FakeReads {
  /** Stands in for `client.listEntries`. */
  readonly listEntries: (options?: ListOptions) => Promise<EntryList>;
  /** The reads started so far, in order. */
  readonly started: FakeRead[];
}

export function fakeReads(): FakeReads {
  const started: FakeRead[] = [];
  const listEntries = (options?: ListOptions) => {
    const outcome = deferred<EntryList>();
    let last: EntryList | undefined;
    started.push({
      page(entriesSoFar) {
        last = fakeEntryList(entriesSoFar);
        options?.onPage?.(last);
        return last;
      },
      async finish(list) {
        outcome.resolve(list ?? last ?? fakeEntryList([]));
        await outcome.promise;
      },
      async fail(error) {
        outcome.reject(error);
        await outcome.promise.catch(() => undefined);
      },
    });
    return outcome.promise;
  };
  return { listEntries, started };
}

/** The read started `index`-th (0: the first); throws when it was not started, so a test cannot pass by skipping it. */
export function readAt(reads: FakeReads, index: number): FakeRead {
  const read = reads.started[index];
  if (!read) throw new Error(`read ${index + 1} was not started (${reads.started.length} so far)`);
  return read;
}
