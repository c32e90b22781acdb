import { teaserParagraphs } from '@/content/teaser';
import './teaser.css';

/** The page while the logbook is closed: plain text, nothing to click, nothing loaded. */
export function Teaser() {
  return (
    <main className="teaser">
      {teaserParagraphs.map((paragraph, index) => (
        // The paragraphs are static content, so their position is a stable key.
        <p key={index}>{paragraph}</p>
      ))}
    </main>
  );
}
