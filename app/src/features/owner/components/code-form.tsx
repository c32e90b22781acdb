import { useId, useState, type FormEvent, type RefObject } from 'react';

interface CodeFormProps {
  /** Present while enrolling: the QR code (a data: URL of the enrolment's SVG) and the secret to type in by hand. */
  readonly enrolment?: { readonly qrCode: string; readonly secret: string };
  readonly busy: boolean;
  readonly onCode: (code: string) => void;
  readonly headingRef: RefObject<HTMLHeadingElement | null>;
}

/** The second factor: enrol (QR code and secret) or a code for the factor enrolled, "Code:" and "Verify". */
export function CodeForm({ enrolment, busy, onCode, headingRef }: CodeFormProps) {
  const [code, setCode] = useState('');
  const id = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onCode(code);
    setCode('');
  };
  return (
    <section aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} ref={headingRef} tabIndex={-1}>
        {enrolment ? 'Set up a second factor' : 'Second factor'}
      </h2>
      {enrolment ? (
        <>
          <p>Scan this code with an authenticator app, or type the secret into it, then enter the code it shows.</p>
          <img className="owner-qr" src={enrolment.qrCode} alt="QR code of the authenticator secret" width={180} height={180} />
          <p>
            Secret: <code className="owner-secret">{enrolment.secret}</code>
          </p>
        </>
      ) : (
        <p>Enter the code your authenticator app shows.</p>
      )}
      <form onSubmit={submit} className="owner-form" noValidate>
        <label htmlFor={`${id}-code`}>Code:</label>
        <input
          id={`${id}-code`}
          inputMode="numeric"
          autoComplete="one-time-code"
          value={code}
          onChange={(event) => setCode(event.target.value)}
        />
        <button type="submit" disabled={busy}>
          Verify
        </button>
      </form>
    </section>
  );
}
