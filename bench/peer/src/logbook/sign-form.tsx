import { useState, type FormEvent } from 'react';
import { useSignLogbook } from './sign-logbook';

export function SignForm({ onSigned }: { readonly onSigned: () => void }) {
  const [name, setName] = useState('');
  const [message, setMessage] = useState('');
  const { sign, pending } = useSignLogbook();

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (await sign({ name, message })) {
      setName('');
      setMessage('');
      onSigned();
    }
  }

  return (
    <section className="card sign-card" aria-label="Sign the logbook">
      <form className="sign-form" onSubmit={(event) => void handleSubmit(event)}>
        <label htmlFor="name">Name:</label>
        <input
          id="name"
          name="name"
          type="text"
          dir="auto"
          required
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
        <label htmlFor="message">Message:</label>
        <textarea
          id="message"
          name="message"
          rows={4}
          dir="auto"
          required
          value={message}
          onChange={(event) => setMessage(event.target.value)}
        />
        <button type="submit" className="primary-button" disabled={pending}>
          Sign Logbook
        </button>
      </form>
    </section>
  );
}
