import type { FormEvent } from 'react';

export interface SignFields {
  readonly name: string;
  readonly message: string;
}

interface SignFormProps {
  readonly fields: SignFields;
  readonly onChange: (fields: SignFields) => void;
  /** Signs what the fields hold; the caller clears them once the sign is stored. */
  readonly onSign: (fields: SignFields) => void;
  /** True while a sign is in flight: the button is disabled and reads "Signing…". */
  readonly pending: boolean;
}

/**
 * Name and message, both required (the browser's own check). The text is sent as typed, no trimming. It takes input
 * and signs before the wasm client has loaded (the sign waits for it), as its served copy does before any script.
 */
export function SignForm({ fields, onChange, onSign, pending }: SignFormProps) {
  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    onSign(fields);
  }

  return (
    <section className="card sign-card" aria-label="Sign the logbook">
      <form className="sign-form" onSubmit={handleSubmit}>
        <label htmlFor="name">Name:</label>
        <input
          id="name"
          name="name"
          type="text"
          dir="auto"
          required
          value={fields.name}
          onChange={(event) => onChange({ ...fields, name: event.target.value })}
        />
        <label htmlFor="message">Message:</label>
        <textarea
          id="message"
          name="message"
          rows={4}
          dir="auto"
          required
          value={fields.message}
          onChange={(event) => onChange({ ...fields, message: event.target.value })}
        />
        <button type="submit" className="primary-button" disabled={pending}>
          {pending ? 'Signing…' : 'Sign Logbook'}
        </button>
      </form>
    </section>
  );
}
