import { readNews, type OutboxNews } from './sign-news';

/** The BroadcastChannel every tab listens on, and the service worker speaks on: what a delivery round did. */
export const OUTBOX_CHANNEL = 'geocache-logbook-outbox';

/**
 * This JavaScript context (a tab, or the service worker): a channel object hears what other objects of its own
 * context post, so news names its sender and a tab skips its own rounds, which it reports itself. Not a secret, so
 * no `crypto.randomUUID`, which pages served over plain HTTP lack.
 */
export const THIS_CONTEXT = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

/** Tells every other context what a round delivered and refused. */
export function tellOthers(news: Omit<OutboxNews, 'from'>): void {
  if (typeof BroadcastChannel === 'undefined') return;
  const channel = new BroadcastChannel(OUTBOX_CHANNEL);
  const message: OutboxNews = { from: THIS_CONTEXT, delivered: news.delivered, refused: news.refused };
  channel.postMessage(message);
  channel.close();
}

/**
 * Listens for other contexts' rounds: `onNews` gets what they delivered and refused, `onOther` any other message
 * (a page of another build). Returns the function that stops listening.
 */
export function listenToOthers(onNews: (news: OutboxNews) => void, onOther: () => void): () => void {
  if (typeof BroadcastChannel === 'undefined') return () => undefined;
  const channel = new BroadcastChannel(OUTBOX_CHANNEL);
  channel.onmessage = (event: MessageEvent) => {
    const news = readNews(event.data);
    if (news === null) onOther();
    else if (news.from !== THIS_CONTEXT) onNews(news);
  };
  return () => channel.close();
}
