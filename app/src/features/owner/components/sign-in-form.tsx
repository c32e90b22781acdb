import { useId, useState, type FormEvent, type RefObject } from 'react';

interface SignInFormProps {
  /** Kept by the page across failures and sign-outs. */
  readonly email: string;
  readonly onEmail: (email: string) => void;
  readonly busy: boolean;
  readonly onSignIn: (email: string, password: string) => void;
  readonly headingRef: RefObject<HTMLHeadingElement | null>;
}

/** "Email:", "Password:", "Sign in". The typed e-mail stays whatever the outcome; the password is cleared after each try. */
export function SignInForm({ email, onEmail, busy, onSignIn, headingRef }: SignInFormProps) {
  const [password, setPassword] = useState('');
  const id = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSignIn(email, password);
    setPassword('');
  };
  return (
    <section aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} ref={headingRef} tabIndex={-1}>
        Sign in
      </h2>
      <form onSubmit={submit} className="owner-form">
        <label htmlFor={`${id}-email`}>Email:</label>
        <input id={`${id}-email`} type="email" autoComplete="username" required value={email} onChange={(event) => onEmail(event.target.value)} />
        <label htmlFor={`${id}-password`}>Password:</label>
        <input id={`${id}-password`} type="password" autoComplete="current-password" required value={password} onChange={(event) => setPassword(event.target.value)} />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </section>
  );
}
