import { useState } from 'preact/hooks';

/**
 * Shown while the gateway answers 401: tokens are configured (STRAND_TOKENS) and this tab has none,
 * or a refused one. The token is kept for this tab only (token.ts).
 */
export function TokenPrompt({ refused, onToken }: { refused: boolean; onToken: (token: string) => void }) {
  const [token, setToken] = useState('');
  const submit = (e: Event) => {
    e.preventDefault();
    if (token.trim()) onToken(token.trim());
  };
  return (
    <div class="overlay" role="dialog" aria-modal="true" aria-labelledby="token-title">
      <form class="token-prompt" onSubmit={submit}>
        <h2 id="token-title">This gateway needs an access token</h2>
        <p>Ask whoever runs it for one (STRAND_TOKENS). It is kept for this tab only and sent to this gateway alone.</p>
        {refused && (
          <p class="problem" role="alert">
            That token was refused.
          </p>
        )}
        <label for="token">Access token</label>
        <input id="token" type="password" autocomplete="off" value={token} onInput={(e) => setToken(e.currentTarget.value)} autofocus />
        <button type="submit" class="primary">
          Sign in
        </button>
      </form>
    </div>
  );
}
