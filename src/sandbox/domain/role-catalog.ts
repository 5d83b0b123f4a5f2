import { BUILTIN_TENANT_ROLES, ORG_ADMIN } from '../../api/constants.js';
import { ALL_PERMISSIONS, BUILTIN_ROLE_DEFINITIONS, PERMISSION_CATALOG } from '../../api/permissions.js';
import type { RoleKind } from '../../api/roles.js';

export { ALL_PERMISSIONS, PERMISSION_CATALOG };

export interface Role {
  id: string;
  name: string;
  description: string;
  kind: RoleKind;
  scope: 'tenant' | 'organization';
  permissions: string[];
  tenant_id: string | null;
  created_at: string;
  updated_at: string;
  created_by: string;
  deleted_at: string | null;
}

const BUILTIN_CREATED = '2024-01-01T00:00:00Z';

/** The built-in roles as role records (src/api/permissions.ts defines what each grants). */
export const BUILTIN_ROLES: readonly Role[] = [...BUILTIN_TENANT_ROLES, ORG_ADMIN as typeof ORG_ADMIN].map(
  (name) => ({
    id: name,
    name,
    description: BUILTIN_ROLE_DEFINITIONS[name].description,
    kind: 'builtin',
    scope: name === ORG_ADMIN ? 'organization' : 'tenant',
    permissions: [...BUILTIN_ROLE_DEFINITIONS[name].permissions].sort(),
    tenant_id: null,
    created_at: BUILTIN_CREATED,
    updated_at: BUILTIN_CREATED,
    created_by: 'system',
    deleted_at: null,
  }),
);
