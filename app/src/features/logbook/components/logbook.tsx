import { LOGBOOK_TITLE } from '@/content/logbook-title';
import { useLogEntries } from '../api/use-log-entries';
import { EntryList } from './entry-list';
import { SignForm } from './sign-form';
import './logbook.css';

/** The open logbook: the form to sign it and every entry, newest first. */
export function Logbook() {
  const { entries, reload } = useLogEntries();
  return (
    <main className="logbook">
      <h1>{LOGBOOK_TITLE}</h1>
      <SignForm onSigned={reload} />
      <section className="logbook-entries" aria-labelledby="logbook-entries-heading">
        <h2 id="logbook-entries-heading">Logbook Entries</h2>
        <EntryList entries={entries} />
      </section>
    </main>
  );
}
