import type { GatewayAddress } from '../gateway-address';
import type { SessionWish } from '../session-choice';

export interface TuiOptions {
  address: GatewayAddress;
  cwd: string;
  session: SessionWish | { kind: 'pick' };
}

export async function runTui(_options: TuiOptions): Promise<void> {
  throw new Error('the interactive chat is not built yet: give the prompt with -p');
}
