// The owner's page (owner.html) against the production build: an owner named with `geocache-emulator owner add`
// signs in, enrols a TOTP factor with a code computed from the secret the page shows, removes an entry while a
// visitor's page is open (it goes there without a reload), another visitor's device copy drops it on a repeat visit,
// and a restore brings it back on both. Refusals and bad input are checked on the wire as well as on the page.
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from '@playwright/test';
import * as OTPAuth from 'otpauth';
import type { RunningEmulator } from '../../scripts/lib/emulator.mjs';
import { ownerCommand } from '../../scripts/lib/emulator.mjs';
import { expect, logbookPage, test, type Stack } from './fixtures.ts';

test.skip(({ pageServer }) => pageServer !== 'production', "the owner's page is tested in the production build");
// The owner is named in the emulator's database file; short challenges make an expired one quick to reach.
test.use({ emulatorDb: 'file', emulatorArgs: ['--mfa-challenge-expiry', '2'] });

const OWNER = 'owner@example.com';
const PASSWORD = 'a long enough password';
const TABLE_URL = (emulator: RunningEmulator) => `${emulator.url}/rest/v1/geocache_logs`;

/** TOTP codes for a secret, each of a time step later than the one before (the emulator refuses a step used before). */
function codesFor(secret: string) {
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 });
  let last = -1;
  return () => {
    const step = Math.max(Math.floor(Date.now() / 30_000), last + 1);
    last = step;
    return totp.generate({ timestamp: step * 30_000 });
  };
}

async function nameOwner(stack: Stack, email = OWNER): Promise<void> {
  if (stack.db === null) throw new Error('the owner is named in a database file');
  const added = await ownerCommand(['add', '--db', stack.db, email], { input: `${PASSWORD}\n` });
  expect(added.code, added.stderr).toBe(0);
}

/** Stores an entry as a visitor would (or with an older time, as an import does), with the service role. */
async function insert(emulator: RunningEmulator, entry: { name: string; message: string; created_at?: string }) {
  const response = await fetch(TABLE_URL(emulator), {
    method: 'POST',
    headers: {
      apikey: emulator.serviceRoleKey,
      authorization: `Bearer ${emulator.serviceRoleKey}`,
      'content-type': 'application/json',
      prefer: 'return=representation',
    },
    body: JSON.stringify(entry),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { id: number }[])[0]!.id;
}

/** The owner's page's parts. */
function ownerPage(page: Page) {
  return {
    email: page.getByLabel('Email:'),
    password: page.getByLabel('Password:'),
    signIn: page.getByRole('button', { name: 'Sign in' }),
    code: page.getByLabel('Code:'),
    verify: page.getByRole('button', { name: 'Verify' }),
    status: page.getByRole('status'),
    entries: page.getByRole('region', { name: 'Entries', exact: true }).getByRole('listitem'),
    removed: page.getByRole('region', { name: 'Removed entries' }).getByRole('listitem'),
    signOut: page.getByRole('button', { name: 'Sign out' }),
  };
}

async function signIn(page: Page, email = OWNER, password = PASSWORD) {
  const owner = ownerPage(page);
  await owner.email.fill(email);
  await owner.password.fill(password);
  await owner.signIn.click();
}

/**
 * Signs in on a fresh owner's page and enrols TOTP; returns the page and its code source. `prepare` runs on the
 * context before the page opens (e.g. to install a clock the test moves).
 */
async function enrolledOwner(browser: Browser, baseURL: string, email = OWNER, prepare?: (context: BrowserContext) => Promise<void>) {
  const context = await browser.newContext({ baseURL, viewport: { width: 390, height: 844 } });
  await prepare?.(context);
  const page = await context.newPage();
  await page.goto('/owner.html');
  await signIn(page, email);
  await expect(page.getByRole('heading', { name: 'Set up a second factor' })).toBeFocused();
  const qr = page.getByRole('img', { name: 'QR code of the authenticator secret' });
  // The QR code is an image that actually loads.
  await expect.poll(() => qr.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0)).toBe(true);
  const secret = (await page.locator('.owner-secret').textContent()) ?? '';
  expect(secret).toMatch(/^[A-Z2-7]+=*$/);
  const nextCode = codesFor(secret);
  const owner = ownerPage(page);
  await owner.code.fill(nextCode());
  await owner.verify.click();
  return { page, context, nextCode };
}

/** Axe finds nothing on the page as it stands, and nothing scrolls sideways (the tests' owner pages are 390 px wide). */
async function expectUsable(page: Page, step: string) {
  expect((await new AxeBuilder({ page }).analyze()).violations, step).toEqual([]);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, `${step}: wider than the 390 px viewport by`).toBeLessThanOrEqual(0);
}

/** Names on a visitor's page, in the order shown. */
async function visitorNames(page: Page): Promise<string[]> {
  return logbookPage(page).entries.evaluateAll((cards) => cards.map((card) => card.querySelector('.entry-name')?.textContent ?? ''));
}

test('an owner removes an entry that vanishes from open pages and device copies, and restores it', async ({ browser, stack, baseURL }) => {
  // Two browsers, a production build and many steps: twice the default guard.
  test.setTimeout(360_000);
  const { emulator } = stack;
  await insert(emulator, { name: 'Ann', message: 'First find' });
  await insert(emulator, { name: 'Spammer', message: 'Buy cheap watches' });
  await insert(emulator, { name: 'Cy', message: 'Great hide' });
  await nameOwner(stack);

  // Visitor B keeps a copy on their device, then leaves.
  const visitorB = await browser.newContext({ baseURL });
  const firstVisit = await visitorB.newPage();
  await firstVisit.goto('/');
  await expect(logbookPage(firstVisit).entries).toHaveCount(3);
  await expect.poll(() => firstVisit.evaluate(() => localStorage.getItem('geocache-logbook-removals'))).not.toBeNull();
  await expect.poll(() => firstVisit.evaluate(() => (JSON.parse(localStorage.getItem('geocache-logbook-first-cards') ?? '{"entries":[]}') as { entries: unknown[] }).entries.length)).toBe(3);
  await firstVisit.close();

  // Visitor A keeps the logbook open.
  const visitorA = await (await browser.newContext({ baseURL })).newPage();
  await visitorA.goto('/');
  const logbookA = logbookPage(visitorA);
  await expect(logbookA.entries).toHaveCount(3);

  const { page, context, nextCode } = await enrolledOwner(browser, baseURL!);
  const owner = ownerPage(page);
  await expect(page.getByRole('heading', { name: 'Entries', exact: true })).toBeFocused();
  await expect(owner.entries).toHaveCount(3);
  // Newest first, name and message as text.
  await expect(owner.entries.first()).toContainText('Cy');
  await expect(owner.entries.first()).toContainText('Great hide');
  expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);

  const spam = owner.entries.filter({ hasText: 'Spammer' });
  await spam.getByRole('button', { name: /^Remove/ }).click();
  await expect(spam.getByRole('group')).toContainText('Spammer');
  await spam.getByRole('button', { name: 'Yes, remove it' }).click();
  await expect(owner.status).toHaveText('Removed the entry by Spammer.');
  await expect(owner.entries).toHaveCount(2);
  await expect(owner.removed).toHaveCount(1);
  await expect(owner.removed.first()).toContainText('Buy cheap watches');

  // Gone from the open page, without a reload, and the live region says nothing of it.
  await expect(logbookA.entries).toHaveCount(2);
  await expect(logbookA.entries.filter({ hasText: 'Spammer' })).toHaveCount(0);
  await expect(logbookA.status).not.toContainText('Spammer');

  // A repeat visit of B's device drops it during that visit.
  const repeat = await visitorB.newPage();
  await repeat.goto('/');
  await expect(logbookPage(repeat).entries.filter({ hasText: 'Cy' })).toHaveCount(1);
  await expect(logbookPage(repeat).entries.filter({ hasText: 'Spammer' })).toHaveCount(0);
  await expect.poll(() => repeat.evaluate(() => localStorage.getItem('geocache-logbook-first-cards') ?? '')).not.toContain('Spammer');
  await repeat.close();

  // The restore: back in its place by time on the open page and on B's next visit.
  await owner.removed.first().getByRole('button', { name: /^Restore/ }).click();
  await expect(owner.status).toHaveText('Restored the entry by Spammer.');
  await expect(owner.removed).toHaveCount(0);
  await expect(owner.entries).toHaveCount(3);
  await expect(logbookA.entries).toHaveCount(3);
  await expect.poll(() => visitorNames(visitorA)).toEqual(['Cy', 'Spammer', 'Ann']);
  const third = await visitorB.newPage();
  await third.goto('/');
  await expect(logbookPage(third).entries.filter({ hasText: 'Spammer' })).toHaveCount(1);
  await expect(logbookPage(third).entries).toHaveCount(3);

  // Entries signed meanwhile reach the owner live.
  await insert(emulator, { name: 'Dee', message: 'Signed while the owner looks' });
  await expect(owner.entries.first()).toContainText('Dee');

  // The session survives a reload; signed out, a later sign-in asks for a code (no new enrolment).
  await page.reload();
  await expect(owner.entries).toHaveCount(4);
  await owner.signOut.click();
  await expect(owner.email).toBeVisible();
  await signIn(page);
  await expect(page.getByRole('heading', { name: 'Second factor' })).toBeFocused();
  await expect(page.getByRole('img')).toHaveCount(0);
  await owner.code.fill(nextCode());
  await owner.verify.click();
  await expect(owner.entries).toHaveCount(4);
  await context.close();
  await visitorB.close();
});

test('every step of the owner page is axe clean and fits a 390 px wide phone', async ({ browser, stack, baseURL }) => {
  await nameOwner(stack);
  const context = await browser.newContext({ baseURL, viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await page.goto('/owner.html');
  const owner = ownerPage(page);
  await expect(owner.email).toBeVisible();
  await expectUsable(page, 'the sign-in form');

  await signIn(page);
  await expect(page.getByRole('heading', { name: 'Set up a second factor' })).toBeFocused();
  const qr = page.getByRole('img', { name: 'QR code of the authenticator secret' });
  await expect.poll(() => qr.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0)).toBe(true);
  await expectUsable(page, 'the TOTP enrolment');
  const nextCode = codesFor((await page.locator('.owner-secret').textContent()) ?? '');
  await owner.code.fill(nextCode());
  await owner.verify.click();
  await expect(page.getByRole('heading', { name: 'Entries', exact: true })).toBeFocused();
  await expectUsable(page, 'the entries');

  await owner.signOut.click();
  await signIn(page);
  await expect(page.getByRole('heading', { name: 'Second factor' })).toBeFocused();
  await expectUsable(page, 'the code step');
  await context.close();
});

test('a non-owner and an owner without the second factor remove nothing', async ({ browser, stack, baseURL }) => {
  const { emulator } = stack;
  const id = await insert(emulator, { name: 'Ann', message: 'Stays' });
  await nameOwner(stack);
  const signUp = await fetch(`${emulator.url}/auth/v1/signup`, {
    method: 'POST',
    headers: { apikey: emulator.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'walker@example.com', password: PASSWORD }),
  });
  expect(signUp.status).toBe(200);
  for (const email of ['walker@example.com', OWNER]) {
    const token = await passwordToken(emulator, email);
    const removal = await fetch(`${TABLE_URL(emulator)}?id=eq.${id}`, {
      method: 'DELETE',
      headers: { apikey: emulator.anonKey, authorization: `Bearer ${token}`, prefer: 'return=representation' },
    });
    expect(removal.status, email).toBe(200);
    expect(await removal.json(), email).toEqual([]);
  }

  // On the page: a non-owner passes the second factor and is told, with no entry shown.
  const { page } = await enrolledOwner(browser, baseURL!, 'walker@example.com');
  await expect(page.getByRole('heading', { name: 'Not the owner' })).toBeVisible();
  await expect(page.getByText('Stays')).toHaveCount(0);
  const list = await fetch(`${TABLE_URL(emulator)}?select=id`, { headers: { apikey: emulator.anonKey } });
  expect(await list.json()).toEqual([{ id }]);
});

test('bad input: an empty code, a wrong code, a code sent twice, an expired challenge, a tampered token', async ({ browser, stack, baseURL }) => {
  await nameOwner(stack);
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await page.goto('/owner.html');
  const owner = ownerPage(page);

  // Wrong credentials are said in words, and the typed e-mail stays.
  await signIn(page, OWNER, 'not the password');
  await expect(owner.status).toHaveText('Wrong e-mail or password.');
  await expect(owner.email).toHaveValue(OWNER);

  await signIn(page);
  await expect(page.getByRole('heading', { name: 'Set up a second factor' })).toBeVisible();
  await owner.verify.click();
  await expect(owner.status).toHaveText('Enter the 6-digit code your authenticator app shows.');
  const secret = (await page.locator('.owner-secret').textContent()) ?? '';
  const code = codesFor(secret)();
  const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
  await owner.code.fill(wrong);
  await owner.verify.click();
  await expect(owner.status).toHaveText('That code is not right: enter the code your authenticator app shows now.');
  await expect(page.getByRole('region', { name: 'Entries', exact: true })).toHaveCount(0);

  // On the wire: the same code twice to one challenge, and a challenge past its expiry, are refused.
  const { emulator } = stack;
  const token = await passwordToken(emulator, OWNER);
  const factors = (await (await auth(emulator, token, 'GET', '/user')).json()) as { factors: { id: string }[] };
  const factorId = factors.factors[0]!.id;
  const challenge = async () => ((await (await auth(emulator, token, 'POST', `/factors/${factorId}/challenge`, {})).json()) as { id: string }).id;
  const once = await challenge();
  const first = await auth(emulator, token, 'POST', `/factors/${factorId}/verify`, { challenge_id: once, code });
  expect(first.status).toBe(200);
  const twice = await auth(emulator, token, 'POST', `/factors/${factorId}/verify`, { challenge_id: once, code });
  expect(twice.status).toBeGreaterThanOrEqual(400);
  const stale = await challenge();
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const late = await auth(emulator, token, 'POST', `/factors/${factorId}/verify`, { challenge_id: stale, code: codesFor(secret)() });
  expect(((await late.json()) as { error_code?: string }).error_code).toBe('mfa_challenge_expired');

  // A token whose claims were changed (aal1 → aal2) is refused, and removes nothing.
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
  const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, aal: 'aal2' })).toString('base64url')}.${signature}`;
  const id = await insert(emulator, { name: 'Ann', message: 'Stays' });
  const removal = await fetch(`${TABLE_URL(emulator)}?id=eq.${id}`, {
    method: 'DELETE',
    headers: { apikey: emulator.anonKey, authorization: `Bearer ${forged}`, prefer: 'return=representation' },
  });
  expect(removal.status).toBe(401);
  await context.close();
});

test("the visitor's service worker never precaches or answers the owner's page", async ({ page, context }) => {
  await page.goto('/');
  await expect(logbookPage(page).heading).toBeVisible();
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  const cached = await page.evaluate(async () => {
    const urls: string[] = [];
    for (const name of await caches.keys()) for (const request of await (await caches.open(name)).keys()) urls.push(request.url);
    return urls;
  });
  expect(cached.some((url) => url.endsWith('/index.html') || url.includes('index.html'))).toBe(true);
  expect(cached.filter((url) => url.includes('owner'))).toEqual([]);
  // Offline, the worker answers the visitor's page but not the owner's: whatever its query, nor by the clean URLs
  // hosts such as Cloudflare Pages and Netlify serve it by.
  await context.setOffline(true);
  await page.reload();
  await expect(logbookPage(page).heading).toBeVisible();
  // Each in a tab of its own: a failed navigation's error page would interrupt the next one.
  for (const path of ['/owner.html', '/owner.html?x=1', '/owner', '/owner/']) {
    const tab = await context.newPage();
    await expect(tab.goto(path), path).rejects.toThrow();
    await tab.close();
  }
  // While it still answers the visitor's page, whatever its query.
  await page.goto('/?x=1');
  await expect(logbookPage(page).heading).toBeVisible();
});

test('an entry imported with a time older than any catch-up read appears on a repeat visit', async ({ page, stack }) => {
  const { emulator } = stack;
  await insert(emulator, { name: 'Ann', message: 'Recent' });
  await page.goto('/');
  const logbook = logbookPage(page);
  await expect(logbook.entries).toHaveCount(1);
  await expect.poll(() => page.evaluate(() => localStorage.getItem('geocache-logbook-removals'))).not.toBeNull();
  await expect.poll(() => page.evaluate(() => localStorage.getItem('geocache-logbook-first-cards') ?? '')).toContain('Recent');
  await insert(emulator, { name: 'Old', message: 'From the paper logbook', created_at: '2019-06-01T12:00:00+00:00' });
  await page.reload();
  await expect(logbook.entries).toHaveCount(2);
  await expect(logbook.entries.last()).toContainText('From the paper logbook');
});

/** A password sign-in's access token (AAL1). */
async function passwordToken(emulator: RunningEmulator, email: string): Promise<string> {
  const response = await fetch(`${emulator.url}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { apikey: emulator.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

function auth(emulator: RunningEmulator, token: string, method: string, pathname: string, body?: unknown) {
  return fetch(`${emulator.url}/auth/v1${pathname}`, {
    method,
    headers: { apikey: emulator.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

test.describe('a session that ends by itself', () => {
  // Access tokens of two minutes: the page's clock is moved past one, as if the owner had left the page open.
  test.use({ emulatorArgs: ['--jwt-expiry', '120'] });

  test("returns to the sign-in form and, signed in again, to the owner's place with the lists read afresh", async ({ browser, stack, baseURL }) => {
    const { emulator } = stack;
    // Enough entries that the oldest is below the fold on a phone.
    for (const name of ['Ann', 'Bo', 'Cy', 'Dee', 'Eve', 'Fay', 'Gus', 'Hal', 'Ike', 'Jo', 'Kit', 'Lou']) {
      await insert(emulator, { name, message: `${name} found it after a long walk through the woods` });
    }
    const spam = await insert(emulator, { name: 'Spammer', message: 'Buy cheap watches' });
    await nameOwner(stack);
    // The page's timers and time are the test's to move (time still flows until then).
    const { page, context, nextCode } = await enrolledOwner(browser, baseURL!, OWNER, (created) => created.clock.install());
    const owner = ownerPage(page);
    await expect(owner.entries).toHaveCount(13);
    await expect(owner.removed).toHaveCount(0);

    // The owner's place: the oldest entry's "Remove", scrolled to and focused (as when tabbing down the list).
    const ann = owner.entries.filter({ hasText: 'Ann' }).getByRole('button', { name: /^Remove/ });
    await ann.focus();
    await expect(ann).toBeFocused();
    await expect(page.getByRole('heading', { name: 'Entries', exact: true })).not.toBeInViewport();

    // The session ends on the server (its refresh token revoked, as a sign-out everywhere does), and the page's
    // access token runs out: the client's next auto-refresh tick is refused and it signs out by itself.
    const elsewhere = await passwordToken(emulator, OWNER);
    expect((await auth(emulator, elsewhere, 'POST', '/logout?scope=global')).status).toBe(204);
    await page.clock.fastForward('03:00');
    await expect(owner.signIn).toBeVisible();
    // Said in the live region, and focus on the form's heading, as when a request of the owner's is refused.
    await expect(page.getByRole('status')).toHaveText('Your session has ended: sign in again to go on.');
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeFocused();
    await expect(page.getByRole('region', { name: 'Entries', exact: true })).toBeHidden();
    await expect(owner.email).toHaveValue(OWNER);

    // Meanwhile a visitor signs, and the spam is removed from the SQL editor (only a read of the lists shows that).
    await insert(emulator, { name: 'Ivy', message: 'Signed while the owner was away' });
    const removal = await fetch(`${TABLE_URL(emulator)}?id=eq.${spam}`, {
      method: 'DELETE',
      headers: { apikey: emulator.serviceRoleKey, authorization: `Bearer ${emulator.serviceRoleKey}` },
    });
    expect(removal.status).toBe(204);

    // Signed in again with the e-mail as kept: password and code, then back at the same entry, the lists up to date.
    await owner.password.fill(PASSWORD);
    await owner.signIn.click();
    await expect(page.getByRole('heading', { name: 'Second factor' })).toBeFocused();
    await owner.code.fill(nextCode());
    await owner.verify.click();
    await expect(owner.removed).toHaveCount(1);
    await expect(owner.removed.first()).toContainText('Buy cheap watches');
    await expect(owner.entries.first()).toContainText('Ivy');
    await expect(owner.entries).toHaveCount(13);
    await expect(ann).toBeFocused();
    await expect(ann).toBeInViewport();
    await context.close();
  });
});
