import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { textStart, UserText } from './user-text';

describe('textStart', () => {
  it('gives a text that fits back whole', () => {
    expect(textStart('TFTC', 4)).toBe('TFTC');
    expect(textStart('', 0)).toBe('');
  });

  it('cuts between graphemes, never inside an emoji sequence, a flag or a combining mark', () => {
    const family = '👩\u200d👩\u200d👧'; // 8 UTF-16 units
    expect(textStart(`ab${family}cd`, 5)).toBe('ab');
    expect(textStart(`ab${family}cd`, 10)).toBe(`ab${family}`);
    expect(textStart('🇩🇪🇩🇪', 6)).toBe('🇩🇪');
    expect(textStart('e\u0301e\u0301', 3)).toBe('e\u0301');
    expect(textStart('😀😀', 3)).toBe('😀');
  });

  it('reads only the start of a megabyte', () => {
    const start = textStart('😀 '.repeat(350_000), 2_000);
    expect(start.length).toBeLessThanOrEqual(2_000);
    expect(start.length).toBeGreaterThan(1_990);
  });
});

describe('UserText', () => {
  it('shows a short text whole, as text, with no button', () => {
    render(<UserText as="p" className="entry-message" text={'<b>hi</b>'} limit={10} what="message" />);
    const shown = screen.getByText('<b>hi</b>');
    expect(shown.tagName).toBe('P');
    expect(shown).toHaveAttribute('dir', 'auto');
    expect(shown.querySelector('b')).toBeNull();
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('cuts a long text until asked, then shows all of it, and cuts it again', async () => {
    const user = userEvent.setup();
    const text = `${'x'.repeat(30)}<script>window.pwned = 1</script>`;
    const { container } = render(<UserText as="p" className="entry-message" text={text} limit={20} what="message" />);
    const shown = () => container.querySelector('p.entry-message');
    expect(shown()?.textContent).toBe('x'.repeat(20));
    expect(shown()).toHaveClass('is-cut');

    await user.click(screen.getByRole('button', { name: 'Show the whole message' }));
    expect(shown()?.textContent).toBe(text);
    expect(shown()).not.toHaveClass('is-cut');
    expect(container.querySelector('script')).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Show less of the message' }));
    expect(shown()?.textContent).toBe('x'.repeat(20));
    expect(screen.getByRole('button')).toHaveAttribute('aria-expanded', 'false');
  });
});
