// CnosDB's session functions: current_user(), current_tenant(), current_database(),
// current_role() (NULL when the user has no role in the tenant, admins included, as CnosDB's
// own test shows for root). They read the statement's session (EvalContext.session); volatile,
// so that constant folding, which runs without a session, leaves them to execution.

import { constantVector, UTF8, type Vector } from '../types/index.js';
import { bug } from '../../core/errors.js';
import type { BoundSignature, EvalContext, ScalarFunction, SessionValues } from './function-types.js';
import { noMatchingSignature } from './signature.js';

function sessionFunction(name: string, pick: (s: SessionValues) => string | null): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    volatile: true,
    bind(argTypes): BoundSignature {
      if (argTypes.length > 0) throw noMatchingSignature(name, argTypes, [[]]);
      return { argTypes: [], returnType: UTF8 };
    },
    evaluate(_args, n: number, ctx: EvalContext): Vector {
      if (ctx.session === undefined) throw bug(`${name}() evaluated without a session`);
      return constantVector(UTF8, pick(ctx.session), n);
    },
  };
}

export const SESSION_FUNCTIONS: readonly ScalarFunction[] = [
  sessionFunction('current_user', (s) => s.user),
  sessionFunction('current_tenant', (s) => s.tenant),
  sessionFunction('current_database', (s) => s.database),
  sessionFunction('current_role', (s) => s.role),
];
