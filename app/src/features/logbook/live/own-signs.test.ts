import { describe, expect, it } from 'vitest';
import { OwnSigns } from './own-signs';

const entry = (id: number, name: string, message: string) => ({ id, created_at: '2024-05-01T10:00:00Z', name, message });

describe('OwnSigns', () => {
  it('claims each sign sent once, by its text', () => {
    const own = new OwnSigns();
    own.expect({ name: 'Me', message: 'Hi' });
    expect(own.claim(entry(1, 'Me', 'Other'))).toBe(false);
    expect(own.claim(entry(2, 'Me', 'Hi'))).toBe(true);
    expect(own.claim(entry(3, 'Me', 'Hi'))).toBe(false);
  });

  it('remembers the last 16 signs only', () => {
    const own = new OwnSigns();
    for (let index = 0; index < 17; index += 1) own.expect({ name: 'Me', message: String(index) });
    expect(own.claim(entry(1, 'Me', '0'))).toBe(false);
    expect(own.claim(entry(2, 'Me', '1'))).toBe(true);
    expect(own.claim(entry(3, 'Me', '16'))).toBe(true);
  });
});
