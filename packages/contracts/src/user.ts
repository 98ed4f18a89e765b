import { z } from 'zod';
import { idSchema, roleNameSchema, timestampSchema } from './common.ts';

export const passwordMinLength = 8;
export const passwordSchema = z.string().min(passwordMinLength).max(200);

export const roleAssignmentSchema = z.object({
  id: idSchema,
  role: roleNameSchema,
  tenant_id: idSchema.nullable(),
  user_id: idSchema,
});
export type RoleAssignment = z.infer<typeof roleAssignmentSchema>;

export const roleAssignmentInputSchema = z
  .object({ role: roleNameSchema, tenant_id: idSchema.nullable().optional() })
  .strict();

export const userSchema = z.object({
  id: idSchema,
  created_time: timestampSchema,
  updated_time: timestampSchema,
  username: z.string(),
  email: z.string(),
  name: z.string(),
  roles: z.array(roleAssignmentSchema),
});
export type User = z.infer<typeof userSchema>;

const usernameSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[\w.@+-]+$/u);
const emailSchema = z.string().trim().toLowerCase().pipe(z.email().max(254));
const nameSchema = z.string().trim().min(1).max(120);

export const userCreateSchema = z
  .object({
    username: usernameSchema,
    password: passwordSchema,
    email: emailSchema,
    name: nameSchema,
    roles: z.array(roleAssignmentInputSchema).min(1).max(50),
  })
  .strict();
export type UserCreate = z.input<typeof userCreateSchema>;

export const userUpdateSchema = userCreateSchema.partial().strict();
export type UserUpdate = z.input<typeof userUpdateSchema>;

/** The console's user form: one role and a tenant (spec section 3). */
export const userFormSchema = z
  .object({
    username: usernameSchema,
    password: passwordSchema.optional(),
    email: emailSchema,
    name: nameSchema,
    role: roleNameSchema,
    tenant_id: idSchema.nullable().optional(),
  })
  .strict();
export type UserForm = z.input<typeof userFormSchema>;

/** Spec section 3: the form's role and tenant become a roles list; an admin has no tenant. */
export function rolesFromForm(form: { role: z.infer<typeof roleNameSchema>; tenant_id?: number | null }) {
  return [{ role: form.role, tenant_id: form.role === 'admin' ? null : (form.tenant_id ?? null) }];
}

export const profileSchema = z.object({
  id: idSchema,
  email: z.string(),
  name: z.string(),
  username: z.string(),
  roles: z.array(roleAssignmentSchema),
});
export type Profile = z.infer<typeof profileSchema>;

export const profileUpdateSchema = z.object({ name: nameSchema, email: emailSchema }).partial().strict();

export const passwordChangeSchema = z
  .object({
    current_password: z.string().min(1),
    password: passwordSchema,
    confirmation: z.string(),
  })
  .strict();
