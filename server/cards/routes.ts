import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../protocol/index.ts';
import type { CarrierProvider } from '../carrier/carrier.ts';
import { SimulatedCarrier } from '../carrier/simulated-carrier.ts';
import type { Db } from '../db/database.ts';
import { cardRoutes } from './card-routes.ts';
import { directionGroupRoutes } from './group-routes.ts';
import { demandRoutes } from '../commerce/demand-routes.ts';
import { licenceRoutes } from '../commerce/licence-routes.ts';
import { orderRoutes } from '../commerce/order-routes.ts';
import { SandboxPayment } from '../commerce/payment.ts';
import { truePointRoutes } from '../commerce/truepoint-routes.ts';

/**
 * Card, directional-group, order and bill calls, a route plugin of route plugins (each area encapsulated); the carrier defaults to the simulated one. Online payment is
 * the sandbox only when asked for (PAYMENT_SANDBOX=on): otherwise there is none, and orders are paid offline.
 */
export async function simRoutes(app: FastifyInstance, deps: { db: Db; clock: Clock; carrier?: CarrierProvider; paymentSandbox: boolean }): Promise<void> {
  const carrier = deps.carrier ?? new SimulatedCarrier(deps.clock);
  const { db, clock } = deps;
  await app.register(cardRoutes, { db, clock, carrier });
  await app.register(directionGroupRoutes, { db, clock, carrier });
  await app.register(orderRoutes, { db, clock, payment: deps.paymentSandbox ? new SandboxPayment() : undefined });
  await app.register(licenceRoutes, { db, clock });
  await app.register(demandRoutes, { db, clock });
  await app.register(truePointRoutes, { db, clock });
}
