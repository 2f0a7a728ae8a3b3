// A large multi-document manifest for benchmarks: Services and Deployments in the shapes seen in
// the real corpus, with the probe settings varied so that every rule family has work to do.

export function generateDeployments(count: number): string {
  const documents: string[] = [];
  for (let i = 0; i < count; i++) {
    const name = `app-${i}`;
    const timeout = i % 3 === 0 ? 10 : 1;
    const readinessPort = i % 2 === 0 ? 'http' : 8080;
    const livenessDelay = i % 5 === 0 ? 60 : 0;
    documents.push(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: team-${i % 40}
  labels:
    app.kubernetes.io/name: ${name}
    app.kubernetes.io/part-of: shop
spec:
  replicas: ${1 + (i % 4)}
  selector:
    matchLabels:
      app.kubernetes.io/name: ${name}
  template:
    metadata:
      labels:
        app.kubernetes.io/name: ${name}
      annotations:
        prometheus.io/scrape: "true"
    spec:
      serviceAccountName: ${name}
      containers:
        - name: web
          image: "registry.example.com/shop/${name}:1.${i % 17}.0"
          args: ["--port=8080", "--log-level=info"]
          ports:
            - name: http
              containerPort: 8080
            - name: metrics
              containerPort: 9090
          env:
            - name: POD_NAME
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
          livenessProbe:
            httpGet:
              path: /healthz
              port: http
            initialDelaySeconds: ${livenessDelay}
            timeoutSeconds: ${timeout}
          readinessProbe:
            httpGet:
              path: /healthz
              port: ${readinessPort}
          resources:
            requests: {cpu: 100m, memory: 128Mi}
            limits: {memory: 256Mi}
        - name: log-shipper
          image: "registry.example.com/shipper:3.1"
          livenessProbe:
            exec:
              command: [/bin/shipper, health]
            periodSeconds: ${i % 7 === 0 ? 5 : 30}
---
apiVersion: v1
kind: Service
metadata:
  name: ${name}
  namespace: team-${i % 40}
spec:
  selector:
    app.kubernetes.io/name: ${name}
  ports:
    - name: http
      port: 80
      targetPort: http
`);
  }
  return documents.join('---\n');
}
