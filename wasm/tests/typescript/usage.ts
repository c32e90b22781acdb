// Compile-time checks of the package's TypeScript surface: what npm users write must type-check,
// and the misuses marked @ts-expect-error must not.
import {
  createClient,
  type AuthError,
  type ClientOptions,
  type EntryList,
  type Factor,
  type FunctionInvokeOptions,
  type FunctionsHttpError,
  type ListOptions,
  type LogbookError,
  type SignOptions,
  type LogEntry,
  type Session,
  type User,
} from "geocache-client";

export async function usage(): Promise<void> {
  const client = createClient("http://127.0.0.1:54321", "anon", { auth: { autoRefreshTickMs: 1000 } });
  createClient("http://127.0.0.1:54321", "anon").dispose();
  const options: ClientOptions = { requestTimeoutMs: 10_000, auth: { persistSession: false } };
  createClient("http://127.0.0.1:54321", "anon", options).dispose();
  createClient("http://127.0.0.1:54321", "anon", { requestTimeoutMs: 5_000 }).dispose();
  {
    using disposable = createClient("http://127.0.0.1:54321", "anon", { auth: { persistSession: false } });
    void disposable.auth;
  }

  const signUp = await client.auth.signUp({ email: "ann@example.com", password: "secret!" });
  if (signUp.error) {
    const error: AuthError = signUp.error;
    const status: number | undefined = error.status;
    const user: null = signUp.data.user;
    void [error.name, error.code, error.retryable, status, user];
  } else {
    const session: Session | null = signUp.data.session;
    void session?.expires_at;
  }

  const signIn = await client.auth.signInWithPassword({ email: "ann@example.com", password: "secret!" });
  if (!signIn.error) {
    const user: User = signIn.data.user;
    void [user.id, signIn.data.session.refresh_token, signIn.data.weakPassword?.reasons];
  }

  const {
    data: { subscription },
  } = client.auth.onAuthStateChange((event, session) => {
    if (event === "TOKEN_REFRESHED" || event === "MFA_CHALLENGE_VERIFIED") void session?.access_token;
  });
  subscription.unsubscribe();

  const { data, error } = await client.auth.getSession();
  if (!error) void data.session?.user.factors;
  await client.auth.getUser();
  await client.auth.refreshSession();
  await client.auth.refreshSession({ refresh_token: "r" });
  await client.auth.setSession({ access_token: "a", refresh_token: "r" });
  await client.auth.startAutoRefresh();
  await client.auth.stopAutoRefresh();

  const mfa = client.auth.mfa;
  const enrolled = await mfa.enroll({ factorType: "totp", friendlyName: "phone app", issuer: "geocache" });
  if (!enrolled.error && enrolled.data.type === "totp") void [enrolled.data.totp.qr_code, enrolled.data.totp.secret];
  await mfa.enroll({ factorType: "phone", phone: "+15550001234" });
  const challenge = await mfa.challenge({ factorId: "f", channel: "whatsapp" });
  if (!challenge.error) {
    const verified = await mfa.verify({ factorId: "f", challengeId: challenge.data.id, code: "123456" });
    if (!verified.error) void verified.data.access_token;
  }
  await mfa.challengeAndVerify({ factorId: "f", code: "123456" });
  const factors = await mfa.listFactors();
  if (!factors.error) {
    const totp: Factor[] = factors.data.totp;
    void [totp, factors.data.all, factors.data.phone];
  }
  const level = await mfa.getAuthenticatorAssuranceLevel();
  if (!level.error) void [level.data.currentLevel, level.data.nextLevel, level.data.currentAuthenticationMethods[0]?.method];
  await mfa.unenroll({ factorId: "f" });

  const { error: signOutError } = await client.auth.signOut({ scope: "local" });
  void signOutError?.code;
  await client.auth.dispose();
  const entries = await client.listEntries();
  const newest: LogEntry = entries.get(0);
  const all: LogEntry[] = entries.toArray();
  const count: number = entries.length;
  const row: [number, string, string, string] = [entries.id(0), entries.createdAt(0), entries.name(0), entries.message(0)];
  void [newest.created_at, all, count, row];
  let shown: EntryList | undefined;
  const listOptions: ListOptions = {
    onPage: (soFar) => {
      shown?.free();
      shown = soFar.withOlderFrom(entries);
      void shown.length;
    },
  };
  const paged: EntryList = await client.listEntries(listOptions);
  await client.listEntries({});
  try {
    await client.listEntries({ onPage: (soFar: EntryList) => void soFar.ids() });
  } catch (caught) {
    const error = caught as LogbookError;
    const page: number | undefined = error.page;
    void [page, error.code === "invalid_content_range"];
  }
  paged.free();
  entries.free();

  try {
    await client.signLogbook({ name: "Ann", message: "Found it!" });
  } catch (caught) {
    const error = caught as LogbookError;
    if (error.code === "timeout" || error.code === "network_error") void error.retryable;
    // Whether it may be stored, and the key that signs it again without doubling it.
    const outcome: "not_stored" | "unknown" | undefined = error.outcome;
    const idempotencyKey: string | undefined = error.idempotencyKey;
    void outcome;
    if (idempotencyKey !== undefined) {
      const again: SignOptions = { idempotencyKey };
      await client.signLogbook({ name: "Ann", message: "Found it!" }, again);
    }
  }
  await client.signLogbook({ name: "Ann", message: "Found it!" }, {});

  const invoked = await client.functions.invoke("notify-owner", { body: { entry: 1 }, headers: { "x-trace": "1" } });
  if (invoked.error === null) {
    const response: Response = invoked.response;
    void [invoked.data, response.status];
  } else if (invoked.error.name === "FunctionsHttpError" || invoked.error.name === "FunctionsRelayError") {
    const http = invoked.error as FunctionsHttpError;
    const context: Response = http.context;
    void [context.status, http.code, invoked.response];
  }
  const invokeOptions: FunctionInvokeOptions = { method: "GET", body: new Blob(["x"]), region: "eu-west-1" };
  await client.functions.invoke("echo/sub", invokeOptions);
  await client.functions.invoke("echo", { body: new FormData(), signal: new AbortController().signal, timeout: 1_000 });
  await client.functions.invoke("echo");

  // @ts-expect-error supabase-js's five methods only
  await client.functions.invoke("echo", { method: "TRACE" });
  // @ts-expect-error the timeout is a number of milliseconds
  await client.functions.invoke("echo", { timeout: "1s" });
  // @ts-expect-error header values are strings
  await client.functions.invoke("echo", { headers: { "x-count": 1 } });
  // @ts-expect-error the list is read by index, not indexed like an array
  void entries[0];
  // @ts-expect-error webauthn factors are not supported by this client
  await mfa.enroll({ factorType: "webauthn" });
  // @ts-expect-error a phone factor needs its number
  await mfa.enroll({ factorType: "phone" });
  // @ts-expect-error the scope is global, local or others
  await client.auth.signOut({ scope: "everyone" });
  // @ts-expect-error a challenge names its factor
  await mfa.challenge({ channel: "sms" });
  // @ts-expect-error the tick is a number of milliseconds
  createClient("http://h", "k", { auth: { autoRefreshTickMs: "fast" } });
  // @ts-expect-error the request timeout is a number of milliseconds
  createClient("http://h", "k", { requestTimeoutMs: "30s" });
  // @ts-expect-error onPage takes a callback
  await client.listEntries({ onPage: 5 });
  // @ts-expect-error withOlderFrom takes another EntryList
  entries.withOlderFrom([]);
  // @ts-expect-error the key is a UUID string
  await client.signLogbook({ name: "Ann", message: "Found it!" }, { idempotencyKey: 7 });
  // @ts-expect-error an outcome is one of two words
  const wrongOutcome: LogbookError["outcome"] = "stored";
  void wrongOutcome;
}
