# JVM image of the webhook. Build the app first: mvn package  (produces webhook/target/quarkus-app)
#   docker build -t ghcr.io/ace-dev/ace-binpacker:0.1.0 .
# One version for the jar (pom.xml), this image (label and tag) and the Helm chart (Chart.yaml); VersionsAgreeTest
# fails when they differ.
FROM registry.access.redhat.com/ubi9/openjdk-17-runtime:1.21

LABEL org.opencontainers.image.title="ace-binpacker" \
      org.opencontainers.image.version="0.1.0" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.description="Admission webhook that keeps NVLink domains whole for tensor-parallel inference"

ENV LANGUAGE='en_US:en'

# The fast-jar layout, layer by layer: dependencies change least often.
COPY --chown=185 webhook/target/quarkus-app/lib/ /deployments/lib/
COPY --chown=185 webhook/target/quarkus-app/*.jar /deployments/
COPY --chown=185 webhook/target/quarkus-app/app/ /deployments/app/
COPY --chown=185 webhook/target/quarkus-app/quarkus/ /deployments/quarkus/

# 8443 webhook (HTTPS), 9000 management (health, metrics; plain HTTP).
EXPOSE 8443 9000
USER 185
ENV JAVA_OPTS_APPEND="-Djava.util.logging.manager=org.jboss.logmanager.LogManager"
ENV JAVA_APP_JAR="/deployments/quarkus-run.jar"

ENTRYPOINT [ "/opt/jboss/container/java/run/run-java.sh" ]
CMD [ "serve" ]
