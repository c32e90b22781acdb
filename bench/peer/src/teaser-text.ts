// Copied from app/src/content/teaser.ts.
export const teaserParagraphs: readonly string[] = [
  'Somewhere along this trail a secret waits, and no map has ever held it.',
  'It is kept behind two codes. The first is written in the landscape for anyone patient enough to read it. The second was never written at all: it passes from one finder to the next, by word of mouth alone.',
  'Only three people know both codes. One hid them, one keeps them, and one has forgotten which is which.',
  'Find all three, and you will not need this page. Find one, and you will know where to begin.',
];
