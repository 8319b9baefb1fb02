import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { unwrap, useAdminClient } from "../api/client";

// Response bodies of apps/public-api/src/domains/admin-domains.routes.ts (the lists) and of domain-service's
// /domains routes, which the admin API passes on as they are (spec 4.10).

export type DomainStatus = "pending" | "verified" | "partially_verified" | "failed";

export interface DomainSummary {
  domain: string;
  status: DomainStatus;
  can_send: boolean;
  verification: { domain_verified: boolean; dkim_verified: boolean; mail_from_verified: boolean };
  dns_records_summary: { total: number; verified: number };
  sender: { sender_name: string | null; sender_email: string } | null;
  last_verified_at: string | null;
  created_at: string;
}

/** One of a domain's 7 records; `verified` is what the last verification found (null: not checked or not yet). */
export interface DnsRecord {
  type: "TXT" | "CNAME";
  /** relative to the domain (`_amazonses`, `…._domainkey`, `@` for the domain itself) */
  name: string;
  value: string;
  purpose: "ses_verification" | "dkim" | "spf" | "dmarc" | "return_path";
  verified: boolean | null;
}

export interface VerifyResult {
  domain: string;
  verification: { domain_verified: boolean; dkim_verified: boolean; mail_from_verified: boolean };
  can_send: boolean;
  message: string;
}

export interface SenderAddress {
  sender_email: string;
  sender_name: string | null;
  verification_status: "pending" | "verified" | "failed";
  created_at: string;
  updated_at: string;
}

const keys = {
  domains: (projectId: string) => ["domains", projectId] as const,
  records: (projectId: string, domain: string) => ["domains", projectId, domain, "records"] as const,
  addresses: (projectId: string) => ["sender-addresses", projectId] as const,
};

export function useDomains(projectId: string) {
  const api = useAdminClient();
  return useQuery({
    queryKey: keys.domains(projectId),
    queryFn: () =>
      unwrap<{ domains: DomainSummary[] }>(
        api.GET("/admin/projects/{projectId}/domains", { params: { path: { projectId } } }),
      ),
  });
}

export function useDnsRecords(projectId: string, domain: string) {
  const api = useAdminClient();
  return useQuery({
    queryKey: keys.records(projectId, domain),
    queryFn: () =>
      unwrap<{ dns_records: DnsRecord[] }>(
        api.GET("/admin/projects/{projectId}/domains/{domain}/dns-records", {
          params: { path: { projectId, domain } },
        }),
      ),
  });
}

export function useRegisterDomain(projectId: string) {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { domain: string; sender_name: string; sender_email: string }) =>
      unwrap<{ domain: string; dns_records: DnsRecord[]; message: string }>(
        api.POST("/admin/projects/{projectId}/domains", { params: { path: { projectId } }, body }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.domains(projectId) }),
  });
}

/** Checks the domain now (the provider, and DNS for DMARC); the records' states and the list follow. */
export function useVerifyDomain(projectId: string) {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (domain: string) =>
      unwrap<VerifyResult>(
        api.POST("/admin/projects/{projectId}/domains/{domain}/verify", {
          params: { path: { projectId, domain } },
        }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.domains(projectId) }),
  });
}

export function useDeleteDomain(projectId: string) {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (domain: string) =>
      unwrap<{ domain: string; message: string }>(
        api.DELETE("/admin/projects/{projectId}/domains/{domain}", {
          params: { path: { projectId, domain } },
        }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.domains(projectId) }),
  });
}

export function useSenderAddresses(projectId: string) {
  const api = useAdminClient();
  return useQuery({
    queryKey: keys.addresses(projectId),
    queryFn: () =>
      unwrap<{ addresses: SenderAddress[] }>(
        api.GET("/admin/projects/{projectId}/sender-addresses", { params: { path: { projectId } } }),
      ),
  });
}

export function useAddSenderAddress(projectId: string) {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { sender_email: string; sender_name: string }) =>
      unwrap<{ sender_email: string; message: string }>(
        api.POST("/admin/projects/{projectId}/sender-addresses", { params: { path: { projectId } }, body }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.addresses(projectId) }),
  });
}

/** The address's state read from the provider now (pending until its link is followed). */
export function useCheckSenderAddress(projectId: string) {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (email: string) =>
      unwrap<{ sender_email: string; verification_status: SenderAddress["verification_status"] }>(
        api.GET("/admin/projects/{projectId}/sender-addresses/{email}/status", {
          params: { path: { projectId, email } },
        }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.addresses(projectId) }),
  });
}

export function useResendVerification(projectId: string) {
  const api = useAdminClient();
  return useMutation({
    mutationFn: (email: string) =>
      unwrap<{ sender_email: string; message: string }>(
        api.POST("/admin/projects/{projectId}/sender-addresses/{email}/resend", {
          params: { path: { projectId, email } },
        }),
      ),
  });
}

export function useDeleteSenderAddress(projectId: string) {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (email: string) =>
      unwrap<{ sender_email: string; message: string }>(
        api.DELETE("/admin/projects/{projectId}/sender-addresses/{email}", {
          params: { path: { projectId, email } },
        }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.addresses(projectId) }),
  });
}
