// @ts-check
// The mobile profile: a slow mobile network and a 4× slower CPU, applied through the Chrome DevTools Protocol to
// the page and to every service worker and worker it starts. A page's network conditions do not cover its service
// worker: a fetch the worker makes itself (its precache, a network-first answer) runs on the worker's own target,
// so without this a page with a service worker would get part of its network unthrottled.

/**
 * @typedef {object} NetworkProfile
 * @property {number} latencyMs
 * @property {number} downloadKbitPerSecond
 * @property {number} uploadKbitPerSecond
 * @property {number} cpuSlowdown
 */

/** 150 ms round trip, 1.6 Mbit/s down, 750 kbit/s up; the CPU 4 times slower than this machine's. */
export const MOBILE_PROFILE = /** @type {Readonly<NetworkProfile>} */ (Object.freeze({ latencyMs: 150, downloadKbitPerSecond: 1600, uploadKbitPerSecond: 750, cpuSlowdown: 4 }));

/** A phone-sized viewport (the same for both pages). */
export const MOBILE_VIEWPORT = Object.freeze({ width: 412, height: 915 });

/**
 * `Network.emulateNetworkConditions` parameters: throughput in bytes a second.
 * @param {Readonly<NetworkProfile>} profile
 * @param {boolean} offline
 */
export function networkConditions(profile, offline) {
  return {
    offline,
    latency: profile.latencyMs,
    downloadThroughput: (profile.downloadKbitPerSecond * 1000) / 8,
    uploadThroughput: (profile.uploadKbitPerSecond * 1000) / 8,
  };
}

/**
 * @typedef {object} ProfileControl
 * @property {(offline: boolean) => Promise<void>} setOffline   for the page and every worker, now and later
 * @property {(rate: number) => Promise<void>} setCpuRate       the page's CPU slowdown (1: none)
 * @property {() => number} workersThrottled                      workers the profile reached so far
 * @property {() => { url: string, wireBytes: number }[]} workerResponses  what the workers fetched themselves
 */

/**
 * Applies the profile to `page` and, through auto-attach on the page's own CDP session, to each worker target it
 * starts (service workers included) before that worker runs its first line.
 * @param {import('playwright-core').BrowserContext} context
 * @param {import('playwright-core').Page} page
 * @param {Readonly<NetworkProfile>} [profile]
 * @returns {Promise<ProfileControl>}
 */
export async function applyMobileProfile(context, page, profile = MOBILE_PROFILE) {
  const cdp = await context.newCDPSession(page);
  let offline = false;
  /** @type {Set<string>} */
  const workerSessions = new Set();
  let workersThrottled = 0;
  /** @type {{ url: string, wireBytes: number }[]} */
  const workerResponses = [];
  /** @type {Map<string, string>} worker request id -> URL, until its body has arrived */
  const workerRequests = new Map();

  // Workers are attached in the non-flat mode: their messages travel inside this session, so this module needs no
  // connection of its own beside Playwright's.
  let nextId = 1;
  /** @type {Map<number, { resolve: (value: any) => void, reject: (error: Error) => void }>} */
  const pending = new Map();
  cdp.on('Target.receivedMessageFromTarget', (event) => {
    const message = JSON.parse(event.message);
    // A worker's own downloads (a service worker's precache) are counted from its Network events.
    if (message.method === 'Network.responseReceived') workerRequests.set(`${event.sessionId}:${message.params.requestId}`, message.params.response.url);
    if (message.method === 'Network.loadingFinished') {
      const key = `${event.sessionId}:${message.params.requestId}`;
      const url = workerRequests.get(key);
      workerRequests.delete(key);
      if (url) workerResponses.push({ url, wireBytes: message.params.encodedDataLength });
    }
    const waiter = typeof message.id === 'number' ? pending.get(message.id) : undefined;
    if (!waiter) return;
    pending.delete(message.id);
    if (message.error) waiter.reject(new Error(`${message.error.message} (${message.error.code})`));
    else waiter.resolve(message.result);
  });
  /**
   * @param {string} sessionId
   * @param {string} method
   * @param {object} [params]
   */
  const sendToWorker = (sessionId, method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) }).catch((error) => {
        pending.delete(id);
        reject(error);
      });
    });
  const throttleWorker = async (/** @type {string} */ sessionId) => {
    await sendToWorker(sessionId, 'Network.enable');
    await sendToWorker(sessionId, 'Network.emulateNetworkConditions', networkConditions(profile, offline));
  };

  cdp.on('Target.attachedToTarget', (event) => {
    const { sessionId } = event;
    void (async () => {
      try {
        workerSessions.add(sessionId);
        await throttleWorker(sessionId);
        workersThrottled += 1;
      } catch {
        // A target without a network of its own (it closed already, or has no Network domain): nothing to throttle.
      } finally {
        await sendToWorker(sessionId, 'Runtime.runIfWaitingForDebugger').catch(() => undefined);
      }
    })();
  });
  cdp.on('Target.detachedFromTarget', (event) => workerSessions.delete(event.sessionId));

  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', networkConditions(profile, false));
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: profile.cpuSlowdown });
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: false });

  return {
    async setOffline(value) {
      offline = value;
      await cdp.send('Network.emulateNetworkConditions', networkConditions(profile, offline));
      await Promise.all([...workerSessions].map((sessionId) => throttleWorker(sessionId).catch(() => undefined)));
    },
    async setCpuRate(rate) {
      await cdp.send('Emulation.setCPUThrottlingRate', { rate });
    },
    workersThrottled: () => workersThrottled,
    workerResponses: () => [...workerResponses],
  };
}
