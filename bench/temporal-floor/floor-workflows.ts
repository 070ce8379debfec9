import * as wf from '@temporalio/workflow';

/**
 * The least a turn can be on strand's architecture (docs/architecture.md): a session workflow takes a prompt
 * by update, runs the turn as a child workflow, and the turn calls its model step as an activity (then
 * a tool and a second model step, for a turn with one tool call). No store, no events, no provider:
 * what remains is Temporal's own cost on this machine (bench/temporal-floor.bench.ts).
 */
export interface FloorActivities {
  step(turnKey: string, kind: 'model' | 'tool'): Promise<void>;
}

export const floorPromptUpdate = wf.defineUpdate<{ turn: number }, [{ key: string; withTool: boolean }]>('floor-prompt');
/** Turns the session has seen end: as strand's `idle`, a prompt sent after it finds the session free. */
export const floorTurnsEndedQuery = wf.defineQuery<number>('floor-turns-ended');

const acts = wf.proxyActivities<FloorActivities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 1 } });

export async function floorSession(): Promise<void> {
  const queue: Array<{ key: string; withTool: boolean; turn: number }> = [];
  let turns = 0;
  let ended = 0;
  wf.setHandler(floorTurnsEndedQuery, () => ended);
  wf.setHandler(floorPromptUpdate, (prompt) => {
    turns += 1;
    queue.push({ ...prompt, turn: turns });
    return { turn: turns };
  });
  for (;;) {
    await wf.condition(() => queue.length > 0);
    const next = queue.shift()!;
    await wf.executeChild(floorTurn, { workflowId: `${wf.workflowInfo().workflowId}:turn:${next.turn}`, args: [next.key, next.withTool] });
    ended += 1;
  }
}

export async function floorTurn(key: string, withTool: boolean): Promise<void> {
  await acts.step(key, 'model');
  if (withTool) {
    await acts.step(key, 'tool');
    await acts.step(key, 'model');
  }
}
