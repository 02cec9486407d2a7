/**
 * The one deadline rule (GDPR Art. 12(3)): a request is answered within one month of its receipt, and that may be
 * extended by up to two further months, told to the requester with the reason while the first month runs. A month
 * ends on the same date of the next month at the time of receipt (UTC), or on that month's last day when it has no
 * such date (31 January + 1 month = 28 or 29 February), as EU Regulation 1182/71 counts periods in months.
 */

export const maxExtensionMonths = 2;

const dayMs = 86_400_000;

/** `from` moved on by `months` calendar months, clamped to the last day of the month it lands in. */
export function addMonths(from: Date, months: number): Date {
  const target = new Date(from.getTime());
  target.setUTCDate(1);
  target.setUTCMonth(target.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(from.getUTCDate(), lastDay));
  return target;
}

export interface DeadlineFacts {
  receivedAt: string;
  /** Months the deadline was moved by (0, 1 or 2). */
  extendedMonths: number;
}

/** When the request must be answered by. */
export const deadlineOf = ({ receivedAt, extendedMonths }: DeadlineFacts): Date =>
  addMonths(new Date(receivedAt), 1 + extendedMonths);

/** Whole days left until the deadline, rounded up (0 on its last day); negative once it has passed. */
export const daysLeft = (request: DeadlineFacts, now = new Date()): number =>
  Math.ceil((deadlineOf(request).getTime() - now.getTime()) / dayMs);

/** Whether the deadline may still be moved: only within the first month, and by two months at most in all. */
export function extensionRefusal(request: DeadlineFacts, byMonths: number, now = new Date()): string | undefined {
  if (!Number.isInteger(byMonths) || byMonths < 1 || byMonths > maxExtensionMonths) {
    return `An extension is 1 or 2 months, not ${byMonths}`;
  }
  if (now.getTime() >= addMonths(new Date(request.receivedAt), 1).getTime()) {
    return 'The deadline can be extended only while the first month runs';
  }
  if (request.extendedMonths + byMonths > maxExtensionMonths) {
    return `The deadline is already extended by ${request.extendedMonths} month(s); ${maxExtensionMonths} is the most in all`;
  }
  return undefined;
}

/** "OVERDUE 3d", "5d left", or "-" for a request that is closed. */
export function clock(request: DeadlineFacts & { status: string }, now = new Date()): string {
  if (request.status === 'completed' || request.status === 'rejected') return '-';
  const left = daysLeft(request, now);
  return left < 0 ? `OVERDUE ${-left}d` : `${left}d left`;
}
