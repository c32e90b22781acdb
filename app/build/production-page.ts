import type { Plugin } from 'vite';
import { readRequestTimeout } from '../src/config/request-timeout.ts';
import { ANON_KEY_VARIABLE, PUBLISHABLE_KEY_VARIABLE, readSupabaseKey } from '../src/config/supabase-key.ts';
import { afterCharsetMeta } from './after-charset-meta.ts';
import { clientConfigError } from './client-config.ts';
import { contentSecurityPolicy, inlineScriptHashes } from './csp.ts';
import { secretKeyProblem } from './secret-key.ts';

export interface ProductionPageOptions {
  /** wasm-pack's output for the logbook client (the `geocache-client` alias target). */
  clientPackageDir: string;
}

/**
 * `vite build` only: injects the Content-Security-Policy meta tag (connections allowed to the configured backend's
 * origin), and checks the build-time configuration with the page's own wasm client, printing the client's error
 * as a warning when the logbook is open but could not connect (the page would log it as "Error fetching logs:"). The
 * page's own setting VITE_REQUEST_TIMEOUT_MS is checked the same way, with the page's own rule. Two different keys,
 * or a key that would give every visitor full rights (a secret or service-role key), stop the build.
 */
export function productionPage({ clientPackageDir }: ProductionPageOptions): Plugin {
  let backendOrigin: string | null = null;
  let info: (message: string) => void = () => undefined;
  return {
    name: 'geocache:production-page',
    apply: 'build',
    async configResolved(config) {
      const env = config.env as Record<string, string | boolean | undefined>;
      const text = (name: string) => (typeof env[name] === 'string' ? env[name] : '');
      const supabaseUrl = text('VITE_SUPABASE_URL');
      const logbookOpen = text('VITE_LOGBOOK_OPEN') === 'true';
      for (const variable of [PUBLISHABLE_KEY_VARIABLE, ANON_KEY_VARIABLE]) {
        const problem = secretKeyProblem(variable, text(variable));
        if (problem !== null) throw new Error(`geocache: ${problem}`);
      }
      const key = readSupabaseKey(env[PUBLISHABLE_KEY_VARIABLE], env[ANON_KEY_VARIABLE]);
      if (!key.ok) throw new Error(`geocache: ${key.error.message}`);
      const configError = await clientConfigError(clientPackageDir, supabaseUrl, key.key);
      // The client accepted the URL, so it parses: connections go to its origin.
      backendOrigin = configError === null ? new URL(supabaseUrl).origin : null;

      const { logger } = config;
      info = (message) => logger.info(message);
      if (configError !== null && logbookOpen) {
        logger.warn(
          `geocache: the logbook is open (VITE_LOGBOOK_OPEN=true) but its client rejects the configuration: ${configError}\n` +
            'geocache: visitors will see an empty logbook and the console will show "Error fetching logs:" with this error. ' +
            'Set VITE_SUPABASE_URL and VITE_SUPABASE_PUBLISHABLE_KEY (docs/deploying.md).',
        );
      } else if (configError !== null) {
        logger.info(`geocache: the logbook is closed (teaser only); before opening it, fix its configuration: ${configError}`);
      }
      const requestTimeout = readRequestTimeout(env.VITE_REQUEST_TIMEOUT_MS);
      if (!requestTimeout.ok && logbookOpen) {
        logger.warn(
          `geocache: the logbook is open (VITE_LOGBOOK_OPEN=true) but the page rejects its configuration: ${requestTimeout.error.message}\n` +
            'geocache: visitors will see an empty logbook and the console will show "Error fetching logs:" with this error. ' +
            'Set REQUEST_TIMEOUT_MS (VITE_REQUEST_TIMEOUT_MS) to a number of milliseconds, or leave it unset for the default of 30 s.',
        );
      } else if (!requestTimeout.ok) {
        logger.info(`geocache: the logbook is closed (teaser only); before opening it, fix its configuration: ${requestTimeout.error.message}`);
      }
      logger.info(`geocache: logbook ${logbookOpen ? 'open' : 'closed (teaser)'}; backend ${backendOrigin ?? 'none'}`);
    },
    // After the plugins that write inline scripts into the page (listed before this one), so their hashes are known.
    transformIndexHtml(html) {
      const policy = contentSecurityPolicy(backendOrigin, inlineScriptHashes(html));
      info(`geocache: Content-Security-Policy: ${policy}`);
      // Right after <meta charset>, before every script, style and icon: a policy applies only to what follows it.
      if (/["&<>]/.test(policy)) throw new Error(`the Content-Security-Policy cannot be written into an attribute as is: ${policy}`);
      return afterCharsetMeta(html, `<meta http-equiv="Content-Security-Policy" content="${policy}" />`, 'the Content-Security-Policy');
    },
  };
}
