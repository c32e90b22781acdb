import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { showUpdatePrompt, UPDATE_TEXT } from './update-prompt';

afterEach(() => {
  document.body.replaceChildren();
});

describe('showUpdatePrompt', () => {
  it('says a new version is available and reloads once when asked', async () => {
    const reload = vi.fn();
    showUpdatePrompt(document.body, reload);
    expect(screen.getByRole('status')).toHaveTextContent(`${UPDATE_TEXT}Reload`);
    const button = screen.getByRole('button', { name: 'Reload' });
    await userEvent.click(button);
    expect(reload).toHaveBeenCalledTimes(1);
    expect(button).toBeDisabled();
  });

  it('shows one prompt however often a new version is announced', () => {
    showUpdatePrompt(document.body, vi.fn());
    showUpdatePrompt(document.body, vi.fn());
    expect(screen.getAllByRole('status')).toHaveLength(1);
  });
});
