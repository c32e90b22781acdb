import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { teaserParagraphs } from '@/content/teaser';
import { Teaser } from './teaser';

describe('Teaser', () => {
  it('shows every paragraph of the owner-editable passage inside <main>, as plain text', () => {
    const { container } = render(<Teaser />);
    const main = screen.getByRole('main');
    const paragraphs = Array.from(main.querySelectorAll('p'), (p) => p.textContent);
    expect(paragraphs).toEqual(teaserParagraphs);
    expect(teaserParagraphs.length).toBeGreaterThan(0);
    // Nothing but paragraphs of text: no links, fields, buttons or headings to interact with.
    expect(container.querySelectorAll('main *:not(p)')).toHaveLength(0);
  });
});
