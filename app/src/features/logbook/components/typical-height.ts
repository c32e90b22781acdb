/** The most common card height measured so far. */
export class TypicalHeight {
  private readonly counts = new Map<number, number>();
  private best = 0;
  typical: number;

  constructor(first: number) {
    this.typical = first;
  }

  record(height: number): number {
    const count = (this.counts.get(height) ?? 0) + 1;
    this.counts.set(height, count);
    if (count > this.best) {
      this.best = count;
      this.typical = height;
    }
    return height;
  }
}
