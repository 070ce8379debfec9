import type { ComponentChildren } from 'preact';

/** The chat page opened on a session (its address form, clients/web/src/address.ts). */
const chatHref = (sessionId: string) => `/#session=${encodeURIComponent(sessionId)}`;

/** The chat page opened on a job's session with its report shown (components/job-banner.tsx). */
export function ReportLink({ sessionId, jobId }: { sessionId: string; jobId: string }) {
  return (
    <a href={`${chatHref(sessionId)}&report=1`} aria-label={`Report of job ${jobId}`} title={`The report of job ${jobId}, on the chat page`}>
      Report
    </a>
  );
}

export function SessionLink({ id }: { id: string }) {
  return (
    <a class="session-link" href={chatHref(id)} title={`Open session ${id} on the chat page`}>
      {id}
    </a>
  );
}

/** A link out of the page (the Temporal Web UI): a new tab, no referrer, nothing of this page passed on. */
export function OutLink({ href, children, label }: { href: string; children: ComponentChildren; label?: string }) {
  return (
    <a href={href} target="_blank" rel="noopener noreferrer" {...(label ? { 'aria-label': label } : {})}>
      {children}
    </a>
  );
}
