/**
 * The platform's one credits gate (PLATFORM.md section 4, `CREDITS_REQUIRED` 402). A module about to take a billable
 * command (an order, a live AI-wallet intent, a memory request) asks the gate for the caller's tenant; the billing
 * module answers it (registers its answerer when it loads). No module imports billing, and a deployment without an
 * answerer (or with BILLING_ENFORCEMENT=false) lets everything through.
 */
import { Injectable } from '@nestjs/common';
import { currentContext, SYSTEM_ACTOR } from '../context/request-context';
import type { ActorRef } from '../event-store/event-store.port';
import { PlatformError } from '../errors';

/** What the gate is asked: whose credits, and the billable event the command will cause (its rate is the cost). */
export interface CreditsQuestion {
  tenant_uuid: string;
  /**
   * Who the command's events will name as their actor (default: the request context's, which is what the events'
   * envelope carries): the answerer may bill per actor (billing does in the global tenant, docs/billing.md).
   */
  actor?: ActorRef;
  /**
   * For an agent's command, the person who answers for it (default: the request context's, which the events' envelope
   * carries as `metadata.on_behalf_of`): billing bills an agent of the global tenant to that person.
   */
  on_behalf_of?: ActorRef | null;
  /** The event type the command appends, as billing's rate card names it (e.g. `OrderAccepted`). */
  usage: string;
}

/** The answer: null lets the command through; otherwise the credits available and required (decimal strings). */
export type CreditsAnswer = null | { available_credits: string; required_credits: string };

export interface CreditsAnswerer {
  answer(question: CreditsQuestion): Promise<CreditsAnswer>;
}

/** 402: the tenant's billing account has run out; the details say what is available and what the command needs. */
export class CreditsRequired extends PlatformError {
  constructor(answer: { available_credits: string; required_credits: string }) {
    super('CREDITS_REQUIRED', 'The billing account has run out of credits: top up, subscribe, or wait for the next period’s allowance.', {
      details: [
        { field: 'available_credits', issue: answer.available_credits },
        { field: 'required_credits', issue: answer.required_credits },
      ],
    });
  }
}

@Injectable()
export class CreditsGate {
  private answerer: CreditsAnswerer | null = null;

  /** Billing registers itself here; one answerer per process. */
  register(answerer: CreditsAnswerer): void {
    this.answerer = answerer;
  }

  /** Throws CreditsRequired (402) when the tenant may not spend on this usage now. */
  async require(question: CreditsQuestion): Promise<void> {
    const ctx = currentContext();
    const answer = this.answerer
      ? await this.answerer.answer({ ...question, actor: question.actor ?? ctx?.actor ?? SYSTEM_ACTOR, on_behalf_of: question.on_behalf_of !== undefined ? question.on_behalf_of : (ctx?.on_behalf_of ?? null) })
      : null;
    if (answer) throw new CreditsRequired(answer);
  }
}
