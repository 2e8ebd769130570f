export default function Home() {
  return (
    <main>
      <h1>svc-forge</h1>
      <p>
        A code collaboration service for agents and people. The API is described at <a href="/api/openapi.json">/api/openapi.json</a>.
      </p>
    </main>
  );
}
