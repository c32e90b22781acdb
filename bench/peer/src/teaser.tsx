import { teaserParagraphs } from './teaser-text';
import './teaser.css';

export function Teaser() {
  return (
    <main className="teaser">
      {teaserParagraphs.map((paragraph, index) => (
        <p key={index}>{paragraph}</p>
      ))}
    </main>
  );
}
