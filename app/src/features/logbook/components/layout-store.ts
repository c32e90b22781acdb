export interface ListLayout {
  readonly top: number;
  readonly gap: number;
}

/** The list's layout as an external store: read when subscribed and whenever the page's size changes. */
export class LayoutStore {
  private readonly list: HTMLUListElement | null;
  private layout: ListLayout = { top: 0, gap: 0 };

  constructor(list: HTMLUListElement | null) {
    this.list = list;
  }

  readonly snapshot = (): ListLayout => this.layout;

  readonly subscribe = (changed: () => void): (() => void) => {
    const { list } = this;
    if (!list) return () => undefined;
    const read = () => {
      const top = list.getBoundingClientRect().top + window.scrollY;
      const gap = parseFloat(getComputedStyle(list).rowGap) || 0;
      if (top !== this.layout.top || gap !== this.layout.gap) {
        this.layout = { top, gap };
        changed();
      }
    };
    read();
    if (typeof ResizeObserver === 'undefined') return () => undefined;
    const observer = new ResizeObserver(read);
    observer.observe(document.body);
    return () => observer.disconnect();
  };
}
