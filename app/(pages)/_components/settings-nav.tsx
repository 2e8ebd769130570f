import Link from "next/link";

/** The settings sub-pages (collaborators and secrets for admins). */
export function SettingsNav({
  base,
  current,
  isAdmin,
}: {
  base: string;
  current: "general" | "policy" | "webhooks" | "collaborators" | "secrets";
  isAdmin: boolean;
}) {
  const items = [
    { key: "general", label: "General", href: `${base}/settings` },
    { key: "policy", label: "Policy", href: `${base}/settings/policy` },
    { key: "webhooks", label: "Webhooks", href: `${base}/settings/webhooks` },
    ...(isAdmin
      ? [
          { key: "collaborators", label: "Collaborators", href: `${base}/settings/collaborators` },
          { key: "secrets", label: "Secrets", href: `${base}/settings/secrets` },
        ]
      : []),
  ];
  return (
    <nav aria-label="Settings">
      <ul className="plain row">
        {items.map((item) => (
          <li key={item.key}>
            <Link href={item.href} aria-current={item.key === current ? "page" : undefined}>
              {item.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
