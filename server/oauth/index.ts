// The area's front door: other areas import from here, never from inside the area.
export {
  corsPreflight,
  handleAuthorizationRequest,
  handleAuthorizationServerMetadata,
  handleConsent,
  handleProtectedResourceMetadata,
  handleRegistration,
  handleRevocation,
  handleToken,
} from "./endpoints";
