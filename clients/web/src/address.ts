/** The session shown is in the address (`#session=<id>`): a reload, a bookmark or a second tab opens it. */
export const sessionInAddress = (): string | undefined => new URLSearchParams(location.hash.slice(1)).get('session') ?? undefined;

export function openSession(id: string | undefined): void {
  location.hash = id ? `session=${encodeURIComponent(id)}` : '';
}
