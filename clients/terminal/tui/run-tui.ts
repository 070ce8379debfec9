import { createElement } from 'react';
import { ChatController } from '../chat-controller';
import type { GatewayAddress } from '../gateway-address';
import type { SessionWish } from '../session-choice';
import { startChat } from '../slash-actions';
import { App } from './app';
import { loadInk } from './ink';

export interface TuiOptions {
  address: GatewayAddress;
  cwd: string;
  session: SessionWish | { kind: 'pick' };
}

/**
 * The interactive `strand chat`: Ink draws the controller's state until the person quits (/quit,
 * Ctrl-C twice). Ctrl-C is the app's own key (Ink's exit on Ctrl-C is off) so that one press only
 * clears the input. A turn still running when the chat closes goes on in the workers.
 */
export async function runTui(options: TuiOptions): Promise<void> {
  const { render } = await loadInk();
  const chat = new ChatController(options.address, options.cwd);
  const instance = render(createElement(App, { chat }), { exitOnCtrlC: false, patchConsole: true });
  try {
    await startChat(chat, options.session);
  } catch (err) {
    instance.unmount();
    chat.close();
    throw err;
  }
  await instance.waitUntilExit();
  chat.close();
}
