"""syncopate.dialects"""
