import { useState, type FormEvent } from 'react';
import { useSignLogbook } from '../api/sign-logbook';

interface SignFormProps {
  /** Called after an entry has been stored. */
  readonly onSigned: () => void;
}

/**
 * Name and message, both required (the browser's own check). Clears itself after a successful sign;
 * keeps what was typed when the sign fails.
 */
export function SignForm({ onSigned }: SignFormProps) {
  const [name, setName] = useState('');
  const [message, setMessage] = useState('');
  const { sign, pending } = useSignLogbook();

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    // Sent as typed: no trimming, the logbook stores text byte for byte.
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
