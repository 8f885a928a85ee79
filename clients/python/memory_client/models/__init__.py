"""Contains all the data models used in inputs/outputs"""

from .account_token_created import AccountTokenCreated
from .account_token_input_request import AccountTokenInputRequest
from .account_token_output import AccountTokenOutput
from .agent_memory_output import AgentMemoryOutput
from .archived_reason_enum import ArchivedReasonEnum
from .assessment_input_request import AssessmentInputRequest
from .avg_pnl_verdict_enum import AvgPnlVerdictEnum
from .backend_enum import BackendEnum
from .bar_input_request import BarInputRequest
from .call_chat_tool_body import CallChatToolBody
from .capability_request_status_enum import CapabilityRequestStatusEnum
from .chat_focus_request import ChatFocusRequest
from .chat_input_request import ChatInputRequest
from .chat_message_request import ChatMessageRequest
from .chat_mode_enum import ChatModeEnum
from .chat_output import ChatOutput
from .chat_usage import ChatUsage
from .citation_output import CitationOutput
from .citation_source_enum import CitationSourceEnum
from .confidence_enum import ConfidenceEnum
from .context_check_input_request import ContextCheckInputRequest
from .context_check_input_request_context import ContextCheckInputRequestContext
from .context_check_output import ContextCheckOutput
from .context_output import ContextOutput
from .context_sections import ContextSections
from .degraded_enum import DegradedEnum
from .deployment_create_input_request import DeploymentCreateInputRequest
from .deployment_lessons_output import DeploymentLessonsOutput
from .deployment_mode_enum import DeploymentModeEnum
from .deployment_output import DeploymentOutput
from .deployment_output_status_enum import DeploymentOutputStatusEnum
from .difference_output import DifferenceOutput
from .direction_enum import DirectionEnum
from .document_input_request import DocumentInputRequest
from .document_input_request_metadata import DocumentInputRequestMetadata
from .document_output import DocumentOutput
from .document_written import DocumentWritten
from .engine_input_kind_enum import EngineInputKindEnum
from .engine_input_request import EngineInputRequest
from .error_body import ErrorBody
from .error_body_errors import ErrorBodyErrors
from .evolution_event_output import EvolutionEventOutput
from .experiment_input_request import ExperimentInputRequest
from .experiment_input_request_context import ExperimentInputRequestContext
from .experiment_output import ExperimentOutput
from .experiment_output_assessment_type_0 import ExperimentOutputAssessmentType0
from .fact_archive_input_request import FactArchiveInputRequest
from .fact_create_input_request import FactCreateInputRequest
from .fact_output import FactOutput
from .fact_output_source_enum import FactOutputSourceEnum
from .fill_input_request import FillInputRequest
from .get_market_memory_date_format import GetMarketMemoryDateFormat
from .health_error import HealthError
from .health_output import HealthOutput
from .historical_signal_output import HistoricalSignalOutput
from .historical_signal_output_metadata import HistoricalSignalOutputMetadata
from .hypothesis_input_request import HypothesisInputRequest
from .hypothesis_output import HypothesisOutput
from .hypothesis_status_enum import HypothesisStatusEnum
from .journal_input_request import JournalInputRequest
from .journal_kind_enum import JournalKindEnum
from .journal_output import JournalOutput
from .lessons_ab_output import LessonsABOutput
from .lessons_revision_output import LessonsRevisionOutput
from .list_capability_requests_status import ListCapabilityRequestsStatus
from .list_documents_source import ListDocumentsSource
from .list_experiments_verdict import ListExperimentsVerdict
from .list_facts_archived import ListFactsArchived
from .list_hypotheses_status import ListHypothesesStatus
from .list_proposals_status import ListProposalsStatus
from .list_trades_status import ListTradesStatus
from .manual_conflict_output import ManualConflictOutput
from .manual_ref import ManualRef
from .market_output import MarketOutput
from .memory_output import MemoryOutput
from .memory_output_agents import MemoryOutputAgents
from .memory_output_degraded_steps_enum import MemoryOutputDegradedStepsEnum
from .owner_enum import OwnerEnum
from .paginated_account_token_output_list import PaginatedAccountTokenOutputList
from .paginated_deployment_output_list import PaginatedDeploymentOutputList
from .paginated_document_output_list import PaginatedDocumentOutputList
from .paginated_evolution_event_output_list import PaginatedEvolutionEventOutputList
from .paginated_experiment_output_list import PaginatedExperimentOutputList
from .paginated_fact_output_list import PaginatedFactOutputList
from .paginated_hypothesis_output_list import PaginatedHypothesisOutputList
from .paginated_journal_output_list import PaginatedJournalOutputList
from .paginated_market_output_list import PaginatedMarketOutputList
from .paginated_proposal_output_list import PaginatedProposalOutputList
from .paginated_request_output_list import PaginatedRequestOutputList
from .paginated_runner_token_output_list import PaginatedRunnerTokenOutputList
from .paginated_skill_output_list import PaginatedSkillOutputList
from .paginated_skill_version_output_list import PaginatedSkillVersionOutputList
from .patched_fact_update_input_request import PatchedFactUpdateInputRequest
from .patched_hypothesis_update_input_request import PatchedHypothesisUpdateInputRequest
from .pnl_interval_output import PnlIntervalOutput
from .position_input_request import PositionInputRequest
from .prior_experiment import PriorExperiment
from .proposal_input_request import ProposalInputRequest
from .proposal_output import ProposalOutput
from .proposal_output_status_enum import ProposalOutputStatusEnum
from .proposed_action_input_kind_enum import ProposedActionInputKindEnum
from .proposed_action_input_request import ProposedActionInputRequest
from .rate_interval_output import RateIntervalOutput
from .reason_enum import ReasonEnum
from .recall_document_source_enum import RecallDocumentSourceEnum
from .recorded_output import RecordedOutput
from .reflection_cadence_enum import ReflectionCadenceEnum
from .reflection_note_output import ReflectionNoteOutput
from .reflection_note_output_source_enum import ReflectionNoteOutputSourceEnum
from .reflection_note_output_status_enum import ReflectionNoteOutputStatusEnum
from .request_output import RequestOutput
from .research_context_output import ResearchContextOutput
from .results_input_request import ResultsInputRequest
from .role_enum import RoleEnum
from .runner_token_created import RunnerTokenCreated
from .runner_token_input_request import RunnerTokenInputRequest
from .runner_token_output import RunnerTokenOutput
from .search_input_request import SearchInputRequest
from .search_output import SearchOutput
from .section_tokens import SectionTokens
from .side_enum import SideEnum
from .signal_created import SignalCreated
from .signal_created_degraded_steps_enum import SignalCreatedDegradedStepsEnum
from .signal_input_request import SignalInputRequest
from .signal_input_request_metadata import SignalInputRequestMetadata
from .skill_create_input_request import SkillCreateInputRequest
from .skill_output import SkillOutput
from .skill_version_input_request import SkillVersionInputRequest
from .skill_version_output import SkillVersionOutput
from .system_prompt_output import SystemPromptOutput
from .system_prompt_segments_output import SystemPromptSegmentsOutput
from .tick_accepted import TickAccepted
from .tick_detail_output import TickDetailOutput
from .tick_detail_output_ops_type_0_item import TickDetailOutputOpsType0Item
from .tick_input_request import TickInputRequest
from .tick_input_request_bars import TickInputRequestBars
from .tick_input_request_marks import TickInputRequestMarks
from .token_estimate import TokenEstimate
from .token_input_request import TokenInputRequest
from .token_output import TokenOutput
from .tool_call_output import ToolCallOutput
from .tool_call_output_input import ToolCallOutputInput
from .tool_call_output_result_type_0 import ToolCallOutputResultType0
from .tool_list import ToolList
from .tool_list_tools_item import ToolListToolsItem
from .trade_figures_output import TradeFiguresOutput
from .trade_output import TradeOutput
from .trade_output_status_enum import TradeOutputStatusEnum
from .type_enum import TypeEnum
from .verdict_enum import VerdictEnum

__all__ = (
    "AccountTokenCreated",
    "AccountTokenInputRequest",
    "AccountTokenOutput",
    "AgentMemoryOutput",
    "ArchivedReasonEnum",
    "AssessmentInputRequest",
    "AvgPnlVerdictEnum",
    "BackendEnum",
    "BarInputRequest",
    "CallChatToolBody",
    "CapabilityRequestStatusEnum",
    "ChatFocusRequest",
    "ChatInputRequest",
    "ChatMessageRequest",
    "ChatModeEnum",
    "ChatOutput",
    "ChatUsage",
    "CitationOutput",
    "CitationSourceEnum",
    "ConfidenceEnum",
    "ContextCheckInputRequest",
    "ContextCheckInputRequestContext",
    "ContextCheckOutput",
    "ContextOutput",
    "ContextSections",
    "DegradedEnum",
    "DeploymentCreateInputRequest",
    "DeploymentLessonsOutput",
    "DeploymentModeEnum",
    "DeploymentOutput",
    "DeploymentOutputStatusEnum",
    "DifferenceOutput",
    "DirectionEnum",
    "DocumentInputRequest",
    "DocumentInputRequestMetadata",
    "DocumentOutput",
    "DocumentWritten",
    "EngineInputKindEnum",
    "EngineInputRequest",
    "ErrorBody",
    "ErrorBodyErrors",
    "EvolutionEventOutput",
    "ExperimentInputRequest",
    "ExperimentInputRequestContext",
    "ExperimentOutput",
    "ExperimentOutputAssessmentType0",
    "FactArchiveInputRequest",
    "FactCreateInputRequest",
    "FactOutput",
    "FactOutputSourceEnum",
    "FillInputRequest",
    "GetMarketMemoryDateFormat",
    "HealthError",
    "HealthOutput",
    "HistoricalSignalOutput",
    "HistoricalSignalOutputMetadata",
    "HypothesisInputRequest",
    "HypothesisOutput",
    "HypothesisStatusEnum",
    "JournalInputRequest",
    "JournalKindEnum",
    "JournalOutput",
    "LessonsABOutput",
    "LessonsRevisionOutput",
    "ListCapabilityRequestsStatus",
    "ListDocumentsSource",
    "ListExperimentsVerdict",
    "ListFactsArchived",
    "ListHypothesesStatus",
    "ListProposalsStatus",
    "ListTradesStatus",
    "ManualConflictOutput",
    "ManualRef",
    "MarketOutput",
    "MemoryOutput",
    "MemoryOutputAgents",
    "MemoryOutputDegradedStepsEnum",
    "OwnerEnum",
    "PaginatedAccountTokenOutputList",
    "PaginatedDeploymentOutputList",
    "PaginatedDocumentOutputList",
    "PaginatedEvolutionEventOutputList",
    "PaginatedExperimentOutputList",
    "PaginatedFactOutputList",
    "PaginatedHypothesisOutputList",
    "PaginatedJournalOutputList",
    "PaginatedMarketOutputList",
    "PaginatedProposalOutputList",
    "PaginatedRequestOutputList",
    "PaginatedRunnerTokenOutputList",
    "PaginatedSkillOutputList",
    "PaginatedSkillVersionOutputList",
    "PatchedFactUpdateInputRequest",
    "PatchedHypothesisUpdateInputRequest",
    "PnlIntervalOutput",
    "PositionInputRequest",
    "PriorExperiment",
    "ProposalInputRequest",
    "ProposalOutput",
    "ProposalOutputStatusEnum",
    "ProposedActionInputKindEnum",
    "ProposedActionInputRequest",
    "RateIntervalOutput",
    "ReasonEnum",
    "RecallDocumentSourceEnum",
    "RecordedOutput",
    "ReflectionCadenceEnum",
    "ReflectionNoteOutput",
    "ReflectionNoteOutputSourceEnum",
    "ReflectionNoteOutputStatusEnum",
    "RequestOutput",
    "ResearchContextOutput",
    "ResultsInputRequest",
    "RoleEnum",
    "RunnerTokenCreated",
    "RunnerTokenInputRequest",
    "RunnerTokenOutput",
    "SearchInputRequest",
    "SearchOutput",
    "SectionTokens",
    "SideEnum",
    "SignalCreated",
    "SignalCreatedDegradedStepsEnum",
    "SignalInputRequest",
    "SignalInputRequestMetadata",
    "SkillCreateInputRequest",
    "SkillOutput",
    "SkillVersionInputRequest",
    "SkillVersionOutput",
    "SystemPromptOutput",
    "SystemPromptSegmentsOutput",
    "TickAccepted",
    "TickDetailOutput",
    "TickDetailOutputOpsType0Item",
    "TickInputRequest",
    "TickInputRequestBars",
    "TickInputRequestMarks",
    "TokenEstimate",
    "TokenInputRequest",
    "TokenOutput",
    "ToolCallOutput",
    "ToolCallOutputInput",
    "ToolCallOutputResultType0",
    "ToolList",
    "ToolListToolsItem",
    "TradeFiguresOutput",
    "TradeOutput",
    "TradeOutputStatusEnum",
    "TypeEnum",
    "VerdictEnum",
)
