import { connect } from 'nats';
import { sessionCreatedSchema } from '../../contracts/http-replies';
import { connectEdnTcp, kindOf } from '../../test/harness/edn-client';
import { chatStart, connectRpc, rpcId, streamedText } from '../../test/harness/ws-rpc-client';
import type { EdnMap } from '../../services/gateway/edn/edn-value';
import type { StrandHttp } from './strand-http';

/**
 * What `npm run compose:e2e -- --cluster` checks beyond the turns every compose stack runs: a turn on
 * each other protocol through the load balancer, and that NATS keeps every stream in three copies.
 */

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`check failed: ${what}`);
}

/** A WebSocket RPC chat through the balancer (HTTP upgrade passed through): its answer streamed, then chat.done once. */
export async function checkWebSocketTurn(port: number, token: string, project: string): Promise<void> {
  const client = await connectRpc(`ws://127.0.0.1:${port}/v1/rpc`, { protocols: [`bearer.${token}`] });
  try {
    const id = rpcId();
    client.send(chatStart(id, 'hello through the balancer', { workspace: project }));
    const done = await client.terminal(id, 120_000);
    check(done.type === 'chat.done', `the WebSocket chat ended with chat.done (got ${JSON.stringify(done).slice(0, 300)})`);
    const expected = 'You said: hello through the balancer';
    check(done.reply?.output === expected, `chat.done carries the answer (${JSON.stringify(done.reply?.output)})`);
    check(streamedText(client.of(id)) === expected, 'the streamed deltas join to the answer');
    check(client.of(id).filter((f) => f.type === 'chat.done').length === 1, 'exactly one chat.done');
    check(client.invalid.length === 0, `every frame passed the protocol's schema (${JSON.stringify(client.invalid).slice(0, 300)})`);
  } finally {
    client.close();
  }
}

/** An EDN prompt over the balancer's TCP port, on a session made over HTTP: its assistant/message and the idle state after it. */
export async function checkEdnTurn(port: number, token: string, http: StrandHttp, project: string): Promise<void> {
  const { session_id: sid } = await http.call('POST', '/api/sessions', 201, sessionCreatedSchema, { project_path: project, model: 'scripted/echo' });
  const client = await connectEdnTcp(port);
  try {
    const ok = (f: EdnMap, what: string) => check(kindOf(f) === 'response' && f.ok === true, `${what} answered (${JSON.stringify(f).slice(0, 300)})`);
    ok(await client.handshake({ 'auth-token': token }), 'the EDN handshake');
    ok(await client.request('switch_session', { 'session-id': sid }), 'switch_session');
    ok(await client.request('subscribe', { topics: ['assistant/message', 'session/updated'] }), 'subscribe');
    const start = client.frames.length;
    ok(await client.request('prompt', { message: 'hello over edn' }, 30_000), 'prompt');
    const message = await client.waitFor((f) => kindOf(f) === 'event' && f.event === 'assistant/message', 120_000, 'assistant/message', start);
    const text = String((message.data as EdnMap | undefined)?.text ?? '');
    check(text === 'You said: hello over edn', `the EDN answer is the echo (${JSON.stringify(text)})`);
    await client.waitFor((f) => kindOf(f) === 'event' && f.event === 'session/updated' && (f.data as EdnMap)['is-streaming'] === false, 30_000, 'idle after the answer', client.frames.indexOf(message));
    check(client.events('assistant/message').length === 1, 'one assistant/message');
    check(client.invalid.length === 0, `every EDN line parsed (${client.invalid.slice(0, 3).join(' | ')})`);
  } finally {
    client.socket.destroy();
  }
}

export interface StreamReplicas {
  stream: string;
  replicas: number;
  /** The node leading the stream's Raft group, and how many other nodes hold a current copy. */
  leader: string;
  current_followers: number;
}

/**
 * Every JetStream stream (key-value buckets and object stores are streams too) as a NATS node at
 * `url` reports it: replicas configured, leader, followers that are current. Several URLs: any node
 * that answers.
 */
export async function streamReplicas(url: string | string[]): Promise<StreamReplicas[]> {
  // From the host only the published port is reachable: the cluster's internal addresses are not.
  const nc = await connect({ servers: url, ignoreClusterUpdates: true, timeout: 10_000 });
  try {
    const jsm = await nc.jetstreamManager();
    const out: StreamReplicas[] = [];
    for await (const s of jsm.streams.list()) {
      out.push({
        stream: s.config.name,
        replicas: s.config.num_replicas,
        leader: s.cluster?.leader ?? '',
        current_followers: (s.cluster?.replicas ?? []).filter((r) => r.current && !r.offline).length,
      });
    }
    return out.sort((a, b) => a.stream.localeCompare(b.stream));
  } finally {
    await nc.close();
  }
}

/** Every stream has three replicas, a leader and two current followers; the ones a turn needs exist. */
export async function checkReplicas(url: string, mustExist: string[]): Promise<StreamReplicas[]> {
  const streams = await streamReplicas(url);
  for (const name of mustExist) check(streams.some((s) => s.stream === name), `stream ${name} exists (streams: ${streams.map((s) => s.stream).join(', ')})`);
  for (const s of streams) {
    check(s.replicas === 3, `stream ${s.stream} has 3 replicas (has ${s.replicas})`);
    check(Boolean(s.leader) && s.current_followers === 2, `stream ${s.stream} has a leader and 2 current followers (${JSON.stringify(s)})`);
  }
  return streams;
}
