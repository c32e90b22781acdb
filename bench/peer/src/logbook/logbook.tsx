import { EntryList } from './entry-list';
import { useLogEntries } from './list-entries';
import { SignForm } from './sign-form';
import '../../../../app/src/features/logbook/components/logbook.css';

export function Logbook() {
  const { entries, reload } = useLogEntries();
  return (
    <main className="logbook">
      <h1>Geocache Signing Page</h1>
      <SignForm onSigned={reload} />
      <section className="logbook-entries" aria-labelledby="logbook-entries-heading">
        <h2 id="logbook-entries-heading">Logbook Entries</h2>
        <EntryList entries={entries} />
      </section>
    </main>
  );
}
