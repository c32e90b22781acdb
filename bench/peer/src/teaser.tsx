import { teaserParagraphs } from '../../../app/src/content/teaser';
import '../../../app/src/features/teaser/components/teaser.css';

export function Teaser() {
  return (
    <main className="teaser">
      {teaserParagraphs.map((paragraph, index) => (
        <p key={index}>{paragraph}</p>
      ))}
    </main>
  );
}
