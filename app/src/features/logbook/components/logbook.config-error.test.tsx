import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { expectConsoleErrors } from '@/testing/console';
import { Logbook } from './logbook';

// The real api modules run here; only the wasm package and the configuration are replaced.
vi.mock('@/config/env', () => ({ env: { logbookOpen: true, supabaseUrl: '', supabaseAnonKey: '' } }));
const createClient = vi.hoisted(() => vi.fn());
vi.mock('geocache-client', () => ({ createClient }));

describe('Logbook with a client that cannot be created (URL or key missing)', () => {
  it('reports the ConfigError through the normal console paths and keeps the page working', async () => {
    const error = Object.assign(new Error('supabaseUrl is required.'), { name: 'ConfigError', code: 'url_required' });
    createClient.mockImplementation(() => {
      throw error;
    });

    render(<Logbook />);
    await waitFor(() => expectConsoleErrors([['Error fetching logs:', error]]));
    expect(createClient).toHaveBeenCalledWith('', '');
    expect(screen.queryAllByTestId('log-entry')).toHaveLength(0);

    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Name:'), 'Bo');
    await user.type(screen.getByLabelText('Message:'), 'TFTC');
    await user.click(screen.getByRole('button', { name: 'Sign Logbook' }));

    await waitFor(() => expectConsoleErrors([['Error inserting log:', error]]));
    expect(screen.getByLabelText('Name:')).toHaveValue('Bo');
    expect(screen.getByLabelText('Message:')).toHaveValue('TFTC');
    expect(screen.getByRole('button', { name: 'Sign Logbook' })).toBeEnabled();
  });
});
