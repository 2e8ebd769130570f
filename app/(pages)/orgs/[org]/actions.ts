"use server";

import { backTo, field, optionalField } from "../../_lib/form";
import { write } from "../../_lib/session";

// The organization page's forms; each calls its /api route's procedure and returns to the page.

const ROLES = ["read", "write", "admin", "owner"] as const;
const role = (form: FormData) => ROLES.find((r) => r === field(form, "role")) ?? "read";

export async function putOrgMember(form: FormData) {
  await write(backTo(form), (api) =>
    api.orgs.putMember({ org: field(form, "org"), username: field(form, "username"), role: role(form) }),
  );
}

export async function removeOrgMember(form: FormData) {
  await write(backTo(form), (api) =>
    api.orgs.removeMember({ org: field(form, "org"), username: field(form, "username") }),
  );
}

export async function createTeam(form: FormData) {
  await write(backTo(form), (api) =>
    api.orgs.createTeam({
      org: field(form, "org"),
      slug: field(form, "slug"),
      name: optionalField(form, "name"),
      description: optionalField(form, "description"),
    }),
  );
}

export async function deleteTeam(form: FormData) {
  await write(backTo(form), (api) => api.orgs.deleteTeam({ org: field(form, "org"), team: field(form, "team") }));
}

export async function addTeamMember(form: FormData) {
  await write(backTo(form), (api) =>
    api.orgs.addTeamMember({ org: field(form, "org"), team: field(form, "team"), username: field(form, "username") }),
  );
}
