import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { listenForAnnouncements } from '@/components/announcements/page-announcement';
import { showUpdatePrompt, UPDATE_LABEL, UPDATE_TEXT } from './update-prompt';

afterEach(() => {
  document.body.replaceChildren();
});

describe('showUpdatePrompt', () => {
  it('says a new version is available and reloads once when asked', async () => {
    const reload = vi.fn();
    const stop = listenForAnnouncements(vi.fn());
    showUpdatePrompt(document.body, reload);
    stop();
    // A landmark of its own, so its button is found by a screen reader's list of regions.
    expect(screen.getByRole('region', { name: UPDATE_LABEL })).toHaveTextContent(`${UPDATE_TEXT}Reload`);
    const button = screen.getByRole('button', { name: 'Reload' });
    await userEvent.click(button);
    expect(reload).toHaveBeenCalledTimes(1);
    expect(button).toBeDisabled();
  });

  it('is said by the page\'s live region where one is shown, and is no live region itself', () => {
    const said = vi.fn();
    const stop = listenForAnnouncements(said);
    try {
      showUpdatePrompt(document.body, vi.fn());
    } finally {
      stop();
    }
    expect(said).toHaveBeenCalledWith(UPDATE_TEXT);
    expect(screen.queryByRole('status')).toBeNull();
    expect(screen.getByRole('region', { name: UPDATE_LABEL })).not.toHaveAttribute('aria-live');
  });

  it('is a status itself until a live region is shown, which then says it instead', () => {
    showUpdatePrompt(document.body, vi.fn());
    expect(screen.getByRole('status')).toHaveTextContent(UPDATE_TEXT);
    const said = vi.fn();
    const stop = listenForAnnouncements(said);
    stop();
    expect(said).toHaveBeenCalledWith(UPDATE_TEXT);
    expect(screen.queryByRole('status')).toBeNull();
    expect(screen.getByRole('region', { name: UPDATE_LABEL })).toHaveTextContent(UPDATE_TEXT);
  });

  it('shows one prompt however often a new version is announced', () => {
    const stop = listenForAnnouncements(vi.fn());
    showUpdatePrompt(document.body, vi.fn());
    showUpdatePrompt(document.body, vi.fn());
    stop();
    expect(screen.getAllByRole('button', { name: 'Reload' })).toHaveLength(1);
  });
});
